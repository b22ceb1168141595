// The bench's pure parts: options, target resolution, ordering, the arithmetic, the table and the HTML.
import { describe, expect, it } from 'vitest';
import { selectStrategies, type CatalogEntry } from '../bench/catalog.js';
import { oversoldText } from '../bench/format.js';
import { renderHtml } from '../bench/html.js';
import { expectedOutcome } from '../bench/measure.js';
import { parseBenchArgs, UsageError } from '../bench/options.js';
import { asExpected, orderRuns, oversoldOf, unansweredOf, verdictOf, withEfficiency, type BenchReport, type RunResult, type Topology } from '../bench/report.js';
import { niceMax } from '../bench/svg.js';
import { renderMarkdown } from '../bench/table.js';
import { resolveTarget } from '../bench/target.js';
import type { ClusterInfo } from '../src/cluster/types.js';

const entry = (name: string, family: string, three: 'exact' | 'oversells' = 'exact', one: 'exact' | 'oversells' = 'exact'): CatalogEntry => ({
  name,
  family,
  description: `${name} <desc>`,
  expected: { oneInstance: one, threeInstances: three },
  stores: ['mysql'],
});
const CATALOG = [entry('none', 'baseline', 'oversells', 'oversells'), entry('mutex', 'baseline', 'oversells'), entry('sql-update', 'sql')];

function run(strategy: string, topology: Topology, over: Partial<RunResult> = {}): RunResult {
  const ok = over.ok ?? 5000;
  const left = over.left ?? 0;
  return {
    strategy, family: 'baseline', store: 'mysql', topology, expected: 'exact', requests: 5000, ok, soldOut: 0, errors: 0, byStatus: { 200: ok },
    initial: 5000, left, deducted: 5000 - left, oversold: oversoldOf(ok, 5000, left), unanswered: 0, rps: 1000, p50Ms: 10, p99Ms: 40, seconds: 5, truncated: false,
    efficiency: null, ...over,
  };
}

function report(runs: RunResult[]): BenchReport {
  return {
    stamp: '2026-11-22T00-00-00', date: '2026-11-22T00:00:00.000Z',
    machine: { nproc: 2, cpu: 'test cpu', node: 'v20', platform: 'Linux' },
    options: { requests: 5000, connections: 100, workMs: 0, maxSeconds: 60, initial: 5000 },
    target: { three: 'http://127.0.0.1:8080', one: 'http://127.0.0.1:8000', source: 'test' },
    catalog: CATALOG,
    ceilings: [{ topology: 'one', rps: 6000, p50Ms: 5, p99Ms: 20, errors: 0 }, { topology: 'three', rps: 5000, p50Ms: 6, p99Ms: 25, errors: 0 }],
    runs: orderRuns(withEfficiency(runs), CATALOG),
    reference: 'mutex',
    notes: [],
  };
}

const RUNS = [
  run('sql-update', 'three', { rps: 1500 }),
  run('none', 'three', { left: 4877, expected: 'oversells', family: 'baseline' }),
  run('mutex', 'one', { rps: 2000 }),
  run('none', 'one', { left: 4870, rps: 3000, expected: 'oversells' }),
  run('mutex', 'three', { left: 123, expected: 'oversells' }),
  run('sql-update', 'one', { rps: 1000, family: 'sql' }),
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

  it('lock efficiency is req/s over mutex on one instance, or null without it', () => {
    const r = withEfficiency(RUNS);
    const eff = (s: string, t: Topology) => r.find((x) => x.strategy === s && x.topology === t)?.efficiency;
    expect(eff('mutex', 'one')).toBe(1);
    expect(eff('none', 'one')).toBe(1.5);
    expect(eff('sql-update', 'one')).toBe(0.5);
    expect(withEfficiency(RUNS.filter((x) => x.strategy !== 'mutex')).every((x) => x.efficiency === null)).toBe(true);
  });

  it('compares with the course: oversold where it should, exact where it should', () => {
    expect(asExpected({ oversold: 10, expected: 'oversells' })).toBe(true);
    expect(asExpected({ oversold: 0, expected: 'exact' })).toBe(true);
    expect(asExpected({ oversold: 5, expected: 'exact' })).toBe(false);
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
      'none/one', 'none/three', 'mutex/one', 'mutex/three', 'sql-update/one', 'sql-update/three',
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
  it('defaults to the course: 5000 requests, 100 connections, workMs 0', () => {
    const o = parseBenchArgs([]);
    expect(o).toMatchObject({ requests: 5000, connections: 100, workMs: 0, maxSeconds: 60, initial: 5000, out: 'bench/results' });
    expect(o.strategies).toBeUndefined();
    expect(parseBenchArgs(['--strategies', 'none, sql-update', '--requests', '200']).strategies).toEqual(['none', 'sql-update']);
    expect(() => parseBenchArgs(['--requests', 'lots'])).toThrow(UsageError);
    expect(() => parseBenchArgs(['--bogus'])).toThrow();
  });

  const recorded: ClusterInfo = {
    dir: '/tmp/x', nginx: 'http://127.0.0.1:8080', instances: ['http://127.0.0.1:8000', 'http://127.0.0.1:8100'],
    mysql: { host: '127.0.0.1', port: 13306, user: 'u', password: 'p', database: 'd' }, redis: 'redis://127.0.0.1:16379', redlock: [], zookeeper: '127.0.0.1:12181',
  };

  it('takes the recorded native cluster by default, flags and env over it', () => {
    const t = resolveTarget(parseBenchArgs([]), {}, recorded);
    expect(t).toMatchObject({ three: 'http://127.0.0.1:8080', one: 'http://127.0.0.1:8000', stores: { mysql: recorded.mysql, redis: recorded.redis } });
    // another front: no instance unless given, stores from flags
    const other = resolveTarget(parseBenchArgs(['--target', 'http://localhost:9080', '--mysql', 'mysql://a:b@127.0.0.1:3307/s', '--redis', 'redis://127.0.0.1:6380']), {}, recorded);
    expect(other).toMatchObject({ three: 'http://localhost:9080', one: undefined, stores: { mysql: { host: '127.0.0.1', port: 3307, user: 'a', password: 'b', database: 's' }, redis: 'redis://127.0.0.1:6380' } });
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
    expect(rows[0]).toContain('1.50×');
    expect(md).toContain('| 1 instance | 6000 |');
  });

  it('is a self-contained HTML page: inline SVG charts, no script, nothing fetched', () => {
    const html = renderHtml(r);
    expect(html.match(/<svg /g)).toHaveLength(2);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(|\b(src|href)=/i);
    // the only absolute URLs are the (loopback) targets quoted as text
    const urls = html.match(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"<)]+/gi) ?? [];
    expect(urls.filter((u) => !/^https?:\/\/(127\.0\.0\.1|localhost)[:/]/.test(u))).toEqual([]);
    expect(html).toContain('OVERSOLD 4870');
    expect(html).toContain('GET /noop, 1 instance: 6000');
  });
});
