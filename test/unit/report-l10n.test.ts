// The chaos, soak, ramp and round-trip-sweep reports in both languages, rendered from the runs the
// docs quote (docs/runs): each HTML page holds an English and a Chinese half, and the Chinese half,
// like the Chinese docs' generated blocks, leaves no English sentence untranslated. Names (strategies,
// servers, fault kinds, answers), code, units and figures stay as the code writes them.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { reliabilityBlocks } from '../../docgen/reliability.js';
import type { RampReport } from '../../report/bench/ramp-results.js';
import { rampDocBlock, rampSummaryBlock, renderRampHtml } from '../../report/bench/ramp-report.js';
import type { SweepReport } from '../../report/bench/sweep-results.js';
import { renderSweepHtml, sweepDocBlock, sweepSummaryBlock } from '../../report/bench/sweep-report.js';
import { renderChaosHtml, type ChaosReport } from '../../faults/chaos/report.js';
import { chaosText } from '../../faults/chaos/words.js';
import { renderSoakHtml, type SoakReport } from '../../faults/soak/report.js';
import { CHAOS_WORDS } from '../../faults/chaos/words.js';
import { SOAK_WORDS } from '../../faults/soak/words.js';
import { RAMP_WORDS } from '../../report/bench/ramp-words.js';
import { SWEEP_WORDS } from '../../report/bench/sweep-words.js';
import { keyPaths } from '../../src/lang.js';

const RUNS = path.resolve(import.meta.dirname, '../../docs/runs');
/** A kept run's JSON (a chaos or soak run's is gzipped). */
const readRun = <T>(file: string): T => {
  const raw = fs.readFileSync(path.join(RUNS, file));
  return JSON.parse((file.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8')) as T;
};
const runsOf = (prefix: string) =>
  fs
    .readdirSync(RUNS)
    .filter((f) => f.startsWith(prefix) && /\.json(\.gz)?$/.test(f))
    .sort();

const CHAOS = [...runsOf('chaos-')];
const SOAK = runsOf('soak-').at(-1) as string;
const RAMP = runsOf('ramp-').at(-1) as string;
/** The sweep the docs cite (docs/results.md's block): the one whose Chinese the docs carry. */
const RTT = (/From `docs\/runs\/(rtt-[^`]+\.json)`/.exec(fs.readFileSync(path.join(RUNS, '..', 'results.md'), 'utf8')) ?? [])[1] as string;

/**
 * The runs of four or more plain English words in a text: an untranslated sentence. A word is
 * letters only, so names with a hyphen, digit, underscore, slash or dot (sql-update, app-0,
 * lock_timeout, GET /sales) never count, nor anything in code (backticks, <code>).
 */
function englishRuns(text: string): string[] {
  const plain = text
    .replace(/<code>[\s\S]*?<\/code>/g, ' ')
    .replace(/`[^`]*`/g, ' ')
    .replace(/\]\([^)]*\)/g, ']');
  return [...plain.matchAll(/(?<![\w/.-])[A-Za-z]+(?:[,;:.]?[ \t]+[A-Za-z]+){3,}(?![\w/-])/g)].map((m) => m[0]);
}

/** The text of one language's half of a bilingual page (lang-switch.ts), tags gone, entities read. */
function half(html: string, lang: 'en' | 'zh'): string {
  const open = `<div class="l10n" data-lang="${lang}" lang="${lang === 'zh' ? 'zh-CN' : 'en'}">`;
  const start = html.indexOf(open);
  expect(start, `no ${lang} half`).toBeGreaterThan(0);
  const rest = html.slice(start + open.length);
  const end = lang === 'en' ? rest.indexOf('<div class="l10n" data-lang="zh"') : rest.lastIndexOf('</div>\n<script>');
  return rest
    .slice(0, end)
    .replace(/<code>[\s\S]*?<\/code>/g, ' ')
    .replace(/<[^>]+>/g, '\n')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

describe.each([
  ['chaos', CHAOS_WORDS],
  ['soak', SOAK_WORDS],
  ['ramp', RAMP_WORDS],
  ['sweep', SWEEP_WORDS],
] as const)('the %s words', (_name, words) => {
  it('have every key, and every list as long, in both languages', () => {
    expect(keyPaths(words.zh)).toEqual(keyPaths(words.en));
  });
});

describe('the check for an untranslated sentence', () => {
  it('finds an English sentence, and passes names, figures and code', () => {
    expect(englishRuns('未判定：0 requests and 0 faults in its turns')).toEqual(['faults in its turns']);
    expect(englishRuns('结论：Verdict: every check holds.')).toHaveLength(1);
    expect(englishRuns('mutex、sql-update、redlock 和 zk-watch；503 busy (nginx)，lock_timeout；app-0 loop delay ms')).toEqual([]);
    expect(englishRuns('重放：`npm run faults -- --chaos --seconds 600 --seed 1` <code>a b c d e</code>')).toEqual([]);
  });
});

const pages: [name: string, html: () => string, en: string, zh: string][] = [
  ...CHAOS.map((f): [string, () => string, string, string] => [
    `chaos ${f}`,
    () => renderChaosHtml(readRun<ChaosReport>(f)),
    'stocklab: chaos (a random nemesis under a steady load)',
    'stocklab：混沌测试（稳定负载下的随机故障）',
  ]),
  [`soak ${SOAK}`, () => renderSoakHtml(readRun<SoakReport>(SOAK)), 'stocklab: soak', 'stocklab：浸泡测试'],
  [`ramp ${RAMP}`, () => renderRampHtml(readRun<RampReport>(RAMP)), 'stocklab: the overload ramp', 'stocklab：过载阶梯'],
  [`round-trip sweep ${RTT}`, () => renderSweepHtml(readRun<SweepReport>(RTT)), 'stocklab: goodput against the round trip', 'stocklab：有效吞吐与往返时延'],
];

describe.each(pages)('the %s report', (_name, render, en, zh) => {
  const html = render();

  it('renders both languages through the switch, each with its own heading', () => {
    expect(html).toContain('<nav class="lang-switch"');
    expect(half(html, 'en')).toContain(en);
    expect(half(html, 'zh')).toContain(zh);
    expect(half(html, 'zh')).not.toContain(en);
  });

  it('leaves no English sentence in its Chinese half', () => {
    expect(englishRuns(half(html, 'zh'))).toEqual([]);
  });

  it('keeps every figure of its English half in its Chinese half', () => {
    // the same figures, each as often (a date's or a range's parts included)
    const figures = (text: string) => (text.match(/\d+(?:\.\d+)?/g) ?? []).sort();
    expect(figures(half(html, 'zh'))).toEqual(figures(half(html, 'en')));
  });
});

describe("the Chinese docs' blocks of these runs", () => {
  const chaos = CHAOS.map((f) => ({ report: readRun<ChaosReport>(f), file: f }));
  const soak = { report: readRun<SoakReport>(SOAK), file: SOAK };
  const ramp = readRun<RampReport>(RAMP);
  const rtt = readRun<SweepReport>(RTT);
  const blocks = (lang: 'en' | 'zh') => [
    ...reliabilityBlocks(chaos, soak, lang).values(),
    rampDocBlock(ramp, lang),
    rampSummaryBlock(ramp, lang),
    sweepDocBlock(rtt, RTT, lang),
    sweepSummaryBlock(rtt, RTT, 'docs/results.md#x', lang),
  ];

  it('are in Chinese, with the same figures as their English twins', () => {
    const zh = blocks('zh');
    expect(zh.flatMap(englishRuns)).toEqual([]);
    const figures = (text: string) => (text.match(/\d+(?:\.\d+)?/g) ?? []).sort();
    blocks('en').forEach((en, i) => expect(figures(zh[i] as string)).toEqual(figures(en)));
  });

  it('say once, for the group, why the strategies above their bound are not limited by it', () => {
    for (const lang of ['en', 'zh'] as const) {
      const block = sweepDocBlock(rtt, RTT, lang);
      const above = rtt.rows.filter((row) => row.cells.some((c) => c.fraction !== null && c.fraction > 1));
      expect(above.length).toBeGreaterThan(1);
      const why = lang === 'en' ? ': 1/(k·r) does not limit' : '：1/(k·r) 限制不了';
      expect(block.split(why)).toHaveLength(2);
      for (const row of above) expect(block).toContain(row.strategy);
    }
    const at2 = rtt.rows.flatMap((row) =>
      row.cells.filter((c) => c.rttMs === 2 && c.fraction !== null && c.fraction > 1).map((c) => `${row.strategy} (${(c.fraction as number).toFixed(1)}×)`),
    );
    expect(sweepDocBlock(rtt, RTT, 'en')).toContain(`At 2 ms, ${at2.slice(0, -1).join(', ')} and ${at2.at(-1)} sell above their bound: `);
  });
});

describe("the chaos run's own texts in Chinese", () => {
  it('says notes, problems and partitions clause by clause, names kept, and leaves an unknown clause as it is', () => {
    expect(chaosText('on redis-replica; failed over; a replica in sync 812 ms after the thaw', 'zh')).toBe(
      '落在 redis-replica 上；发生了主从切换；解冻后 812 毫秒以从节点身份完成同步',
    );
    expect(chaosText('app-0 drops mysql,redis; redis drops app-0', 'zh')).toBe('app-0 丢弃来自 mysql,redis 的包；redis 丢弃来自 app-0 的包');
    expect(chaosText('redlock: no 200 within 30000 ms of the last heal', 'zh')).toBe('redlock：最后一次恢复后 30000 毫秒内没有 200');
    expect(chaosText('something new happened', 'zh')).toBe('something new happened');
    expect(chaosText('the instances logged 2 answers 500 (each a bug, whoever asked); the first: {"status":500}', 'zh')).toBe(
      '实例日志里记下了 2 个 500 响应（不管请求是谁发的，每一个都是缺陷）；第一条：{"status":500}',
    );
    expect(chaosText('something new happened', 'en')).toBe('something new happened');
  });
});
