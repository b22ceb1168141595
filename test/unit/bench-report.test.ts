// The bench's pure parts: options, target resolution, ordering, the arithmetic, the table and the HTML.
import { describe, expect, it } from 'vitest';
import { selectStrategies, type CatalogEntry } from '../../src/load/catalog.js';
import { oversoldText, RUN_COLUMNS, runCells } from '../../report/bench/format.js';
import { renderHtml } from '../../report/bench/html.js';
import { expectedOutcome } from '../../bench/measure.js';
import { chosenStrategies, COURSE_LINE, parseBenchArgs, UsageError } from '../../bench/options.js';
import { raceSize, rotated } from '../../bench/bench.js';
import { oversoldOf } from '../../src/load/race.js';
import {
  asExpected,
  orderRuns,
  unansweredOf,
  verdictOf,
  withStandings,
  worstOf,
  type BenchReport,
  type RaceFigures,
  type RunResult,
  type Topology,
} from '../../report/bench/report.js';
import { spreadOf, standings, type Spread } from '../../report/bench/stats.js';
import { niceMax, renderBarChart } from '../../report/svg.js';
import { renderMarkdown } from '../../report/bench/table.js';
import { resolveTarget } from '../../bench/target.js';
import { brokenWhereOthersHold, linedPairs } from '../../docgen/summary.js';
import type { FaultRow } from '../../faults/row.js';
import type { ClusterInfo } from '../../src/cluster/types.js';

const entry = (name: string, family: string, three: 'exact' | 'oversells' = 'exact', one: 'exact' | 'oversells' = 'exact'): CatalogEntry => ({
  name,
  family,
  description: `${name} <desc>`,
  expected: { oneInstance: one, threeInstances: three },
  stores: ['mysql'],
});
const CATALOG = [entry('none', 'baseline', 'oversells', 'oversells'), entry('mutex', 'baseline', 'oversells'), entry('sql-update', 'sql')];

const spread = (...samples: number[]): Spread => spreadOf(samples);

function run(
  strategy: string,
  topology: Topology,
  over: { ok?: number; left?: number; goodput?: Spread; family?: string; expected?: 'exact' | 'oversells' } = {},
): RunResult {
  const ok = over.ok ?? 5000;
  const left = over.left ?? 0;
  const race: RaceFigures = {
    requests: 5000,
    initial: 5000,
    ok,
    soldOut: 0,
    byAnswer: { 200: ok },
    refused: 0,
    unexpected: 0,
    left,
    deducted: 5000 - left,
    oversold: oversoldOf(ok, 5000, left),
    unanswered: 0,
    seconds: 5,
    truncated: false,
  };
  const ms = spread(10, 12, 14);
  return {
    strategy,
    family: over.family ?? 'baseline',
    store: 'mysql',
    topology,
    expected: over.expected ?? 'exact',
    race,
    throughput: { goodput: over.goodput ?? spread(900, 1000, 1100), refusedPerSec: spread(0, 0, 0), p50Ms: ms, p99Ms: ms },
    worst: { oversold: race.oversold, unanswered: 0 },
    efficiency: null,
    rank: 0,
    tiesWith: [],
  };
}

function report(runs: RunResult[]): BenchReport {
  const o = parseBenchArgs([]);
  return {
    stamp: '2026-11-22T00-00-00',
    date: '2026-11-22T00:00:00.000Z',
    machine: { nproc: 2, cpu: 'test cpu', node: 'v20', platform: 'Linux' },
    options: { ...o },
    target: { three: 'http://127.0.0.1:8080', one: 'http://127.0.0.1:8000', source: 'test' },
    catalog: CATALOG,
    ceilings: [
      { topology: 'one', autocannon: spread(5800, 6000, 6100), wrk: spread(6300, 6400, 6600) },
      { topology: 'three', autocannon: spread(5000, 5000, 5000), wrk: null },
    ],
    runs: orderRuns(withStandings(runs), CATALOG),
    reference: 'mutex',
    seconds: 400,
    notes: [],
  };
}

const RUNS = [
  run('sql-update', 'three', { goodput: spread(1400, 1500, 1600) }),
  run('none', 'three', { left: 4877, expected: 'oversells' }),
  run('mutex', 'one', { goodput: spread(1900, 2000, 2100) }),
  run('none', 'one', { left: 4870, goodput: spread(2900, 3000, 3300), expected: 'oversells' }),
  run('mutex', 'three', { left: 123, expected: 'oversells' }),
  run('sql-update', 'one', { goodput: spread(950, 1000, 1050), family: 'sql' }),
];

describe('bench arithmetic', () => {
  it('oversold is successes minus units that left the store', () => {
    expect(oversoldOf(5000, 5000, 4870)).toBe(4870);
    expect(oversoldOf(5000, 5000, 0)).toBe(0);
    expect(oversoldOf(4990, 5000, 0)).toBe(-10);
    expect(verdictOf({ oversold: 3 })).toBe('oversold');
    expect(verdictOf({ oversold: 0 })).toBe('exact');
    expect(verdictOf({ oversold: -1 })).toBe('undersold');
  });

  it('counts requests cut off by truncation as maybe-sold: oversold is then a lower bound', () => {
    expect(unansweredOf(5000, 1200, 0, true, 100)).toBe(100);
    expect(unansweredOf(5000, 4990, 10, false, 100)).toBe(10);
    expect(unansweredOf(5000, 5000, 0, false, 100)).toBe(0);
    // 40 cut off, 30 of them deducted on the server: not undersold
    expect(verdictOf({ oversold: -30, unanswered: 40 })).toBe('exact');
    expect(oversoldText({ oversold: -30, unanswered: 40 })).toBe('0 (40 unanswered)');
    expect(oversoldText({ oversold: 12, unanswered: 40 })).toBe('OVERSOLD ≥ 12');
    expect(verdictOf({ oversold: -50, unanswered: 40 })).toBe('undersold');
  });

  it('lock efficiency divides medians by mutex on one instance, or is null without it', () => {
    const r = withStandings(RUNS);
    const eff = (s: string, t: Topology) => r.find((x) => x.strategy === s && x.topology === t)?.efficiency;
    expect(eff('mutex', 'one')).toBe(1);
    expect(eff('none', 'one')).toBe(1.5);
    expect(eff('sql-update', 'one')).toBe(0.5);
    expect(withStandings(RUNS.filter((x) => x.strategy !== 'mutex')).every((x) => x.efficiency === null)).toBe(true);
  });

  it('reduces repeats to a median with its range, and calls overlapping ranges a tie', () => {
    expect(spreadOf([5, 1, 3])).toMatchObject({ median: 3, min: 1, max: 5 });
    expect(spreadOf([4, 1, 3, 2]).median).toBe(2.5);
    const s = standings([
      { name: 'fast', spread: spread(900, 1000, 1100) },
      { name: 'close', spread: spread(850, 880, 905) },
      { name: 'slow', spread: spread(100, 120, 140) },
    ]);
    expect(s.get('fast')).toEqual({ rank: 1, tiesWith: ['close'] });
    expect(s.get('close')).toEqual({ rank: 1, tiesWith: ['fast'] });
    expect(s.get('slow')).toEqual({ rank: 3, tiesWith: [] });
  });

  it('reports the worst count check, never a median: any oversell wins over exact runs', () => {
    expect(
      worstOf([
        { oversold: 0, unanswered: 0 },
        { oversold: 3, unanswered: 0 },
        { oversold: 1, unanswered: 0 },
      ]),
    ).toEqual({ oversold: 3, unanswered: 0 });
    expect(
      worstOf([
        { oversold: 0, unanswered: 2 },
        { oversold: -5, unanswered: 1 },
      ]),
    ).toEqual({ oversold: -5, unanswered: 1 });
    expect(
      worstOf([
        { oversold: 0, unanswered: 0 },
        { oversold: -1, unanswered: 4 },
      ]),
    ).toEqual({ oversold: -1, unanswered: 4 });
  });

  it('sizes a race from goodput, within 100 and 1000 units, except the course rows and fixed sizes', () => {
    const o = parseBenchArgs([]);
    expect(raceSize(o, 'mutex', 50)).toEqual({ requests: 5100, initial: 5000 });
    expect(raceSize(o, 'zk-watch', 212)).toEqual({ requests: 420, initial: 320 });
    expect(raceSize(o, 'zk-sequential', 20)).toEqual({ requests: 200, initial: 100 });
    expect(raceSize(o, 'sql-update', 4000)).toEqual({ requests: 1100, initial: 1000 });
    expect(raceSize(parseBenchArgs(['--initial', '300']), 'mutex', 50)).toEqual({ requests: 400, initial: 300 });
  });

  it('rotates the order of strategies from round to round', () => {
    expect([0, 1, 2, 3].map((r) => rotated(['a', 'b', 'c'], r).join(''))).toEqual(['abc', 'bca', 'cab', 'abc']);
  });

  it('compares with the course: oversold where it should, exact where it should', () => {
    expect(asExpected({ worst: { oversold: 10, unanswered: 0 }, expected: 'oversells' })).toBe(true);
    expect(asExpected({ worst: { oversold: 0, unanswered: 0 }, expected: 'exact' })).toBe(true);
    expect(asExpected({ worst: { oversold: 5, unanswered: 0 }, expected: 'exact' })).toBe(false);
  });

  it('expects a leased lock to follow its workOverTtl outcome once the work outlasts the lease', () => {
    const leased: CatalogEntry = { ...entry('redis-owned', 'redis'), expected: { oneInstance: 'exact', threeInstances: 'exact', workOverTtl: 'oversells' } };
    expect(expectedOutcome(leased, 'three', { workMs: 0 })).toBe('exact');
    expect(expectedOutcome(leased, 'three', { workMs: 50, ttlMs: 20 })).toBe('oversells');
    expect(expectedOutcome(leased, 'one', { workMs: 50, ttlMs: 20 })).toBe('oversells');
    expect(expectedOutcome(leased, 'one', { workMs: 20, ttlMs: 20 })).toBe('exact');
    // the service's default lease (30 s) applies when the bench passes none
    expect(expectedOutcome(leased, 'one', { workMs: 50 })).toBe('exact');
    // a strategy without a lease keeps its topology outcome
    expect(expectedOutcome(entry('mutex', 'baseline', 'oversells'), 'three', { workMs: 50, ttlMs: 20 })).toBe('oversells');
  });

  it('orders runs as the catalog does, one instance before three', () => {
    expect(orderRuns(RUNS, CATALOG).map((r) => `${r.strategy}/${r.topology}`)).toEqual([
      'none/one',
      'none/three',
      'mutex/one',
      'mutex/three',
      'sql-update/one',
      'sql-update/three',
    ]);
  });

  it('selects strategies in catalog order and rejects unknown ones', () => {
    expect(selectStrategies(CATALOG, ['sql-update', 'none']).map((s) => s.name)).toEqual(['none', 'sql-update']);
    expect(selectStrategies(CATALOG, undefined)).toHaveLength(3);
    expect(() => selectStrategies(CATALOG, ['nope'])).toThrow(/unknown strategies: nope/);
  });

  it('rounds chart axes to 1, 2 or 5 × 10ⁿ', () => {
    expect([niceMax(0), niceMax(7), niceMax(1234), niceMax(4870), niceMax(50)]).toEqual([1, 10, 2000, 5000, 50]);
  });
});

describe('bench options and target', () => {
  it("defaults to the course's line; --all runs every strategy; --strategies and --all go apart", () => {
    expect(chosenStrategies(parseBenchArgs([]))).toEqual(COURSE_LINE);
    expect(chosenStrategies(parseBenchArgs(['--all']))).toBeUndefined();
    expect(chosenStrategies(parseBenchArgs(['--strategies', 'none']))).toEqual(['none']);
    expect(() => parseBenchArgs(['--all', '--strategies', 'none'])).toThrow(UsageError);
  });

  it('defaults to 3 rounds of 0.3 s + 0.5 s windows at 100 connections, races sized by goodput and the course size for none and mutex', () => {
    const o = parseBenchArgs([]);
    expect(o).toMatchObject({
      rounds: 3,
      warmupSeconds: 0.3,
      windowSeconds: 0.5,
      connections: 100,
      workMs: 0,
      requests: 1100,
      initial: 1000,
      raceSeconds: 1.5,
      maxSeconds: 60,
      out: 'bench/results',
    });
    expect(o).toMatchObject({ courseRequests: 5100, courseInitial: 5000, courseStrategies: ['none', 'mutex'] });
    expect(o.strategies).toBeUndefined();
    expect(parseBenchArgs(['--strategies', 'none, sql-update', '--requests', '200']).strategies).toEqual(['none', 'sql-update']);
    // explicit race sizes apply to every strategy; --full races everything at the course size
    expect(parseBenchArgs(['--requests', '200'])).toMatchObject({ courseStrategies: [], raceSeconds: undefined });
    expect(parseBenchArgs(['--full'])).toMatchObject({ requests: 5100, initial: 5000 });
    expect(parseBenchArgs(['--window', '0.5'])).toMatchObject({ windowSeconds: 0.5 });
    expect(() => parseBenchArgs(['--requests', 'lots'])).toThrow(UsageError);
    expect(() => parseBenchArgs(['--window', '0'])).toThrow(UsageError);
    expect(() => parseBenchArgs(['--bogus'])).toThrow();
  });

  const recorded: ClusterInfo = {
    dir: '/tmp/x',
    nginx: 'http://127.0.0.1:8080',
    instances: ['http://127.0.0.1:8000', 'http://127.0.0.1:8100'],
    mysql: { host: '127.0.0.1', port: 13306, user: 'u', password: 'p', database: 'd' },
    redis: 'redis://127.0.0.1:16379',
    redlock: [],
    zookeeper: '127.0.0.1:12181',
  };

  it('takes the recorded native cluster by default, flags and env over it', () => {
    const t = resolveTarget(parseBenchArgs([]), {}, recorded);
    expect(t).toMatchObject({ three: 'http://127.0.0.1:8080', one: 'http://127.0.0.1:8000', stores: { mysql: recorded.mysql, redis: recorded.redis } });
    // another front: no instance unless given, stores from flags
    const other = resolveTarget(
      parseBenchArgs(['--target', 'http://localhost:9080', '--mysql', 'mysql://a:b@127.0.0.1:3307/s', '--redis', 'redis://127.0.0.1:6380']),
      {},
      recorded,
    );
    expect(other).toMatchObject({
      three: 'http://localhost:9080',
      one: undefined,
      stores: { mysql: { host: '127.0.0.1', port: 3307, user: 'a', password: 'b', database: 's' }, redis: 'redis://127.0.0.1:6380' },
    });
    expect(other.stores.postgres).toBeUndefined();
    // PostgreSQL from --postgres (as compose's bench passes it), its port defaulting to 5432
    const pg = resolveTarget(parseBenchArgs(['--target', 'http://localhost:9080', '--postgres', 'postgres://a:b%40c@127.0.0.1/s']), {}, recorded);
    expect(pg.stores.postgres).toEqual({ host: '127.0.0.1', port: 5432, user: 'a', password: 'b@c', database: 's' });
    expect(resolveTarget(parseBenchArgs(['--target', 'http://localhost:8080']), {}, recorded).one).toBe('http://127.0.0.1:8000');
    expect(resolveTarget(parseBenchArgs(['--target', 'http://localhost:9080']), { MYSQL_PORT: '3310' }, recorded).stores.mysql.port).toBe(3310);
    expect(() => resolveTarget(parseBenchArgs([]), {}, undefined)).toThrow(/npm run cluster -- up/);
  });
});

describe('bench report', () => {
  const r = report(RUNS);

  it('prints a markdown table in catalog order that names unsafe results plainly', () => {
    const md = renderMarkdown(r);
    const rows = md.split('\n').filter((l) => /^\| (baseline|sql) /.test(l));
    expect(rows.map((l) => l.split('|')[2]?.trim())).toEqual(['none', 'none', 'mutex', 'mutex', 'sql-update', 'sql-update']);
    expect(rows[0]).toContain('OVERSOLD 4870');
    expect(rows[1]).toContain('OVERSOLD 4877');
    expect(rows[3]).toContain('OVERSOLD 123');
    expect(rows[4]).toMatch(/\| 0 \|/);
    expect(rows[0]).toContain('| 3000 (2900–3300) |');
    expect(rows[0]).toContain('1.50×');
    expect(md).toContain('| 1 instance | 6000 (5800–6100) | 6400 (6300–6600) | 0.94 |');
    expect(md).toContain('| 3 via nginx | 5000 (5000–5000) | wrk not installed | n/a |');
    // on three instances sql-update (1400–1600) and the other two (900–1100) do not overlap; none and mutex do
    expect(md).toContain('3 via nginx: none ~ mutex');
  });

  it('prints the same table with Chinese headings under --lang zh, the figures and names unchanged', () => {
    const zh = renderMarkdown(r, 'zh');
    expect(zh).toContain('| 类别 | 方案 | 存储 | 实例 |');
    expect(zh).toContain('| 单实例 | 6000 (5800–6100) | 6400 (6300–6600) | 0.94 |');
    expect(zh).toContain('OVERSOLD 4870');
    expect(zh).toContain('共 3 轮');
    // one row per run, as in English
    const rows = (md: string) => md.split('\n').filter((l) => /^\| (baseline|sql) /.test(l)).length;
    expect(rows(zh)).toBe(rows(renderMarkdown(r)));
  });

  it('is a self-contained HTML page in both languages: inline SVG charts, one inline script, nothing fetched', () => {
    const html = renderHtml(r);
    // two charts in each language's block
    expect(html.match(/<svg /g)).toHaveLength(4);
    expect(html.match(/<div class="l10n" data-lang="(en|zh)"/g)).toEqual(['<div class="l10n" data-lang="en"', '<div class="l10n" data-lang="zh"']);
    // the language switch: one inline script, which loads nothing
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).not.toMatch(/<script[^>]*\bsrc=|fetch\(|XMLHttpRequest|import\(|<link|<img|<iframe|@import|url\(|\b(src|href)=/i);
    // the only absolute URLs are the (loopback) targets quoted as text
    const urls = html.match(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"<)]+/gi) ?? [];
    expect(urls.filter((u) => !/^https?:\/\/(127\.0\.0\.1|localhost)[:/]/.test(u))).toEqual([]);
    expect(html).toContain('OVERSOLD 4870');
    expect(html).toContain('GET /noop, 1 instance: 6000');
    expect(html).toContain('median of 3 rounds');
    expect(html).toContain('GET /noop, 单实例: 6000');
    expect(html).toContain('3 轮的中位数');
    expect(html).toContain('<th>超卖</th>');
    // the space-time view is the live lab's: the command, and a strategy this bench saw oversell
    expect(html).toContain('<code>npm run live</code> and open <code>http://127.0.0.1:8090/?strategy=none</code>');
  });

  it("shows a run that sold nothing in its windows as such, with its race's refusals, never as 0.00× or a rank", () => {
    const nothing = { ...run('lib-redlock', 'three', { ok: 25, left: 75, goodput: spread(0, 0, 0) }), efficiency: 0, rank: 33 };
    nothing.race = { ...nothing.race, requests: 200, initial: 100, refused: 175 };
    const cells = runCells(nothing);
    expect(cells[RUN_COLUMNS.indexOf('vs mutex')]).toBe('sold nothing');
    expect(cells[RUN_COLUMNS.indexOf('rank')]).toBe('–');
    expect(runCells(nothing, 'zh')[RUN_COLUMNS.indexOf('vs mutex')]).toBe('没有卖出');
    const md = renderMarkdown(report([...r.runs, nothing]));
    expect(md).toContain('lib-redlock (3 via nginx) sold nothing in its measured windows');
    expect(md).toContain('25 of 200 answered requests sold and 175 were refused (503)');
    expect(md).not.toContain('0.00×');
    // a run that sold something keeps its ratio and rank
    expect(runCells({ ...run('mutex', 'one'), efficiency: 1, rank: 1 })[RUN_COLUMNS.indexOf('vs mutex')]).toBe('1.00×');
  });

  it("gives each run its messages per sale where the cluster counted them, and '–' where it did not (another target, an older run)", () => {
    const counted = runCells({ ...run('zk-watch', 'three'), messagesPerSale: 6.06 });
    expect(counted).toHaveLength(RUN_COLUMNS.length);
    expect(counted[RUN_COLUMNS.indexOf('msgs/sale')]).toBe('6.1');
    expect(runCells(run('zk-watch', 'three'))[RUN_COLUMNS.indexOf('msgs/sale')]).toBe('–');
  });

  it("draws each goodput bar with a whisker over its rounds' min–max, and none where the rounds agree", () => {
    const chart = renderBarChart({
      title: 't',
      unit: 'sold/s',
      series: [{ name: 'one', color: '#000' }],
      rows: [
        { label: 'spread', values: [1000], ranges: [{ min: 900, max: 1100 }] },
        { label: 'flat', values: [500], ranges: [{ min: 500, max: 500 }] },
      ],
    });
    // one whisker, from 900 to 1100 on an axis to 2000 (plot from x=200, 680 px wide)
    expect(chart.match(/class="whisker"/g)).toHaveLength(1);
    expect(chart).toContain('M506.0 ');
    expect(chart).toContain('H574.0');
    expect(chart).toContain('spread · one: 1000 (900–1100) sold/s');
    // the value is written past the whisker's end, not over it
    expect(chart).toMatch(/<text x="578\.0"[^>]*class="value">1000</);
    expect(renderHtml(r).match(/class="whisker"/g)?.length).toBeGreaterThan(0);
  });
});

describe("the README's summary: the course's per-request locks beside their +line rows", () => {
  it('gives each pair its ratios to mutex, from the run, in each language; none when a form was not run', () => {
    const lined = [entry('redlock', 'redlock'), entry('redlock+line', 'redlock')];
    const runs = withStandings([
      run('mutex', 'one', { goodput: spread(900, 1000, 1100) }),
      run('mutex', 'three', { left: 123, expected: 'oversells' }),
      run('redlock', 'one', { goodput: spread(290, 300, 310), family: 'redlock' }),
      run('redlock', 'three', { goodput: spread(190, 200, 210), family: 'redlock' }),
      run('redlock+line', 'one', { goodput: spread(850, 900, 950), family: 'redlock' }),
      run('redlock+line', 'three', { goodput: spread(650, 700, 750), family: 'redlock' }),
    ]);
    const r: BenchReport = { ...report([]), catalog: [...CATALOG, ...lined], runs };
    expect(linedPairs(r, 'en')).toBe('`redlock` 0.30× / 0.20× against `redlock+line` 0.90× / 0.70×');
    expect(linedPairs(r, 'zh')).toBe('`redlock` 0.30× / 0.20× 对 `redlock+line` 0.90× / 0.70×');
    expect(linedPairs({ ...r, runs: runs.filter((x) => x.strategy !== 'redlock') }, 'en')).toBeUndefined();
  });
});

describe("the README's summary: the strategy to use", () => {
  const row = (strategy: string, variant: string, oversold: number, recoverMs: number | null = 500) =>
    ({ scenario: 'etcd-lease', strategy, variant, store: 'mysql', oversold, doubleDeductions: 0, recoverMs, recoverBoundMs: 10_000 }) as unknown as FaultRow;
  it('is never one a fault breaks where another of its family holds, whatever its speed', () => {
    const rows = [
      row('etcd-lock', 'unfenced pause', 20),
      row('etcd-lock-no-recheck', 'unfenced pause', 20), // both break: a lease's lesson, not a flaw
      row('etcd-lock', "waiter's lease revoked", 0),
      row('etcd-lock-no-recheck', "waiter's lease revoked", 1),
      row('lock-table', 'holder crash', 0),
      row('lock-table-basic', 'holder crash', 0, null),
    ];
    expect([...brokenWhereOthersHold(rows, ['etcd-lock', 'etcd-lock-no-recheck'])]).toEqual(['etcd-lock-no-recheck']);
    expect([...brokenWhereOthersHold(rows, ['lock-table', 'lock-table-basic'])]).toEqual(['lock-table-basic']);
    expect([...brokenWhereOthersHold(rows, ['etcd-lock'])]).toEqual([]);
  });
});
