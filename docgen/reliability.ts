// The reliability blocks of the docs, from chaos and soak runs' JSON (`npm run docs -- … --chaos F
// --soak F`): the README's one table of what the nemesis and the soak checked, and each run's own
// tables in docs/faults.md, in the doc's language. The figures are the runs' own; nothing here is
// typed by hand.
import path from 'node:path';
import { faultsByKind, renderChaosTable, summaryLines as chaosSummary, topologyOf as historyTopology, type ChaosReport } from '../faults/chaos/report.js';
import { CHAOS_WORDS, chaosText } from '../faults/chaos/words.js';
import { renderSlopeTable, summaryLines as soakSummary, type SoakReport } from '../faults/soak/report.js';
import { SOAK_WORDS, soakText } from '../faults/soak/words.js';
import type { Lang } from '../src/lang.js';
import { markdownTable } from '../report/table.js';

export interface Run<T> {
  report: T;
  file: string;
}

/** The summary table's words in each language; the figures are the same in both. */
const WORDS = {
  en: {
    columns: ['run', 'minutes', 'faults injected', 'requests checked', 'strategies exact', 'not exact, as allowed', 'verdict'],
    chaosRun: (topology: string, seed: number) => `chaos, ${topology}, seed ${seed}`,
    soakRun: 'soak',
    faults: (n: number, kinds: number) => `${n} (${kinds} kinds)`,
    exact: (exact: number, of: number, notJudged: number) => `${exact} of ${of}${notJudged > 0 ? ` (${notJudged} not judged)` : ''}`,
    none: 'none',
    asTheCatalogSays: 'as the catalog says',
    allowed: (strategy: string, by: string) => `${strategy} (${by})`,
    then: '; ',
    and: ', ',
    holds: 'every check holds',
    failed: (n: number, failures: string) => `${n} failed: ${failures}`,
    tooShort: 'too short to judge growth',
    nothingGrows: 'nothing keeps growing',
    grows: (resources: string) => `grows: ${resources}`,
    from: (sources: string) => `From ${sources}.`,
  },
  zh: {
    columns: ['运行', '分钟', '注入的故障', '检查的请求', '准确的方案', '不准确但被允许', '结论'],
    chaosRun: (topology: string, seed: number) => `混沌测试，${topology}，种子 ${seed}`,
    soakRun: '浸泡测试',
    faults: (n: number, kinds: number) => `${n}（${kinds} 种）`,
    exact: (exact: number, of: number, notJudged: number) => `${of} 个中 ${exact} 个${notJudged > 0 ? `（${notJudged} 个未判定）` : ''}`,
    none: '无',
    asTheCatalogSays: '方案目录如此声明',
    allowed: (strategy: string, by: string) => `${strategy}（${by}）`,
    then: '；',
    and: '、',
    holds: '每项检查都成立',
    failed: (n: number, failures: string) => `${n} 项失败：${failures}`,
    tooShort: '运行太短，无法判断增长',
    nothingGrows: '没有一直增长的资源',
    grows: (resources: string) => `一直增长：${resources}`,
    from: (sources: string) => `来自 ${sources}。`,
  },
} satisfies Record<Lang, unknown>;

const fileOf = (p: string) => path.relative(process.cwd(), path.resolve(p));
const minutes = (seconds: number) => (seconds / 60).toFixed(1);

const topologyOf = (r: ChaosReport): string => historyTopology(r.history);

/** "27 of 29 (2 not judged)": a strategy that saw too little is not counted as exact. */
function exactCell(v: readonly { exact: boolean; notJudged?: string }[], lang: Lang): string {
  const notJudged = v.filter((s) => s.notJudged !== undefined).length;
  return WORDS[lang].exact(v.filter((s) => s.exact && s.notJudged === undefined).length, v.length, notJudged);
}

function chaosCells(r: ChaosReport, lang: Lang): string[] {
  const w = WORDS[lang];
  const v = r.verdict.strategies;
  const reported = v.filter((s) => !s.exact && s.asCatalogSays);
  return [
    w.chaosRun(topologyOf(r), r.options.seed),
    minutes(r.options.seconds),
    w.faults(r.history.faults.length, Object.keys(faultsByKind(r)).length),
    String(r.history.requests.length),
    exactCell(v, lang),
    reported.length === 0 ? w.none : reported.map((s) => w.allowed(s.strategy, s.allowedBy ? chaosText(s.allowedBy, lang) : w.asTheCatalogSays)).join(w.then),
    r.verdict.ok ? w.holds : w.failed(r.verdict.failures.length, r.verdict.failures.map((f) => chaosText(f, lang)).join(w.then)),
  ];
}

function soakCells(r: SoakReport, lang: Lang): string[] {
  const w = WORDS[lang];
  const v = r.verdict.strategies;
  const growing = r.slopes.filter((s) => s.grows).map((s) => s.resource);
  return [
    w.soakRun,
    String(r.options.minutes),
    w.none,
    String(r.requests),
    exactCell(v, lang),
    w.none,
    r.ok
      ? r.growth?.judged === false
        ? w.tooShort
        : w.nothingGrows
      : growing.length > 0
        ? w.grows(growing.join(w.and))
        : r.failures.map((f) => soakText(f, lang)).join(w.then),
  ];
}

export function reliabilityBlocks(chaos: readonly Run<ChaosReport>[], soak?: Run<SoakReport>, lang: Lang = 'en'): Map<string, string> {
  const w = WORDS[lang];
  const blocks = new Map<string, string>();
  if (chaos.length === 0 && !soak) return blocks;
  const rows = [...chaos.map((c) => chaosCells(c.report, lang)), ...(soak ? [soakCells(soak.report, lang)] : [])];
  const sources = [
    ...chaos.map((c) => `\`${c.report.rerun}\` (\`${fileOf(c.file)}\`)`),
    ...(soak ? [`\`npm run soak -- --minutes ${soak.report.options.minutes}\` (\`${fileOf(soak.file)}\`)`] : []),
  ];
  const sourcesText = lang === 'zh' ? sources.map((s) => s.replace(/ \((`[^`]+`)\)$/, '（$1）')).join('、') : sources.join(', ');
  blocks.set('reliability', [markdownTable(w.columns, rows), '', w.from(sourcesText)].join('\n'));
  if (chaos.length > 0) {
    const runs = chaos.map(({ report: r, file }) =>
      [
        CHAOS_WORDS[lang].docs.run(topologyOf(r), r.options.seed, minutes(r.options.seconds), fileOf(file)),
        '',
        ...chaosSummary(r, lang).map((l) => `${l}\n`),
        renderChaosTable(r, true, lang),
      ].join('\n'),
    );
    blocks.set('chaos-runs', runs.join('\n\n'));
  }
  if (soak) {
    blocks.set(
      'soak-run',
      [SOAK_WORDS[lang].docs.from(fileOf(soak.file)), '', ...soakSummary(soak.report, lang).map((l) => `${l}\n`), renderSlopeTable(soak.report, lang)].join(
        '\n',
      ),
    );
  }
  return blocks;
}
