// The round-trip sweep's pure parts (report/bench/sweep-results.ts, report/bench/sweep-report.ts):
// k from the servers' counts with the RedLock masters counted once, the bound 1/(k·r), the --rtt
// flag, and the report on a made-up run.
import { describe, expect, it } from 'vitest';
import { parseBenchArgs, UsageError } from '../../bench/options.js';
import { spreadOf } from '../../report/bench/stats.js';
import { kOf } from '../../bench/message-counts.js';
import { boundOf, type SweepReport } from '../../report/bench/sweep-results.js';
import { renderSweepHtml, renderSweepMarkdown, sweepLeaseBlock } from '../../report/bench/sweep-report.js';
import type { RaceFigures } from '../../report/bench/report.js';

const exactRace: RaceFigures = {
  requests: 110,
  initial: 100,
  ok: 100,
  soldOut: 10,
  byAnswer: { '200': 100, '409 sold_out': 10 },
  refused: 0,
  unknownOutcome: 0,
  unexpected: 0,
  left: 0,
  deducted: 100,
  oversold: 0,
  unanswered: 0,
  seconds: 1,
  truncated: false,
};

describe('the round-trip sweep', () => {
  it('counts k with the RedLock masters once, and bounds a sale at 1/(k·r)', () => {
    // redlock: 2 messages to each of 5 masters in parallel, 2 MySQL statements
    expect(kOf({ redis: 0, redlock: 10, mysql: 2, zookeeper: 0 }, 5)).toBe(4);
    expect(boundOf(4, 2)).toBe(125);
    expect(boundOf(4, 0)).toBeNull();
    expect(boundOf(0, 2)).toBeNull();
  });

  it('takes --rtt as ascending round trips with one above 0, apart from --ramp and --target', () => {
    expect(parseBenchArgs(['--rtt', '2,0,0.5,2']).rtts).toEqual([0, 0.5, 2]);
    expect(parseBenchArgs([]).rtts).toBeUndefined();
    expect(() => parseBenchArgs(['--rtt', '0'])).toThrow(UsageError);
    expect(() => parseBenchArgs(['--rtt', 'x'])).toThrow(/--rtt/);
    expect(() => parseBenchArgs(['--rtt', '2', '--ramp'])).toThrow(/--ramp/);
    expect(() => parseBenchArgs(['--rtt', '2', '--target', 'http://127.0.0.1:9'])).toThrow(/--target/);
  });

  it('reports k, the bound, the goodput and its fraction at each round trip, and says when a strategy is above its bound', () => {
    const ms = (v: number) => spreadOf([v * 0.9, v, v * 1.1]);
    const report: SweepReport = {
      kind: 'rtt-sweep',
      stamp: 's',
      date: 'd',
      machine: { nproc: 2, cpu: 'cpu', node: 'v20' },
      rtts: [0, 2],
      rounds: 3,
      connections: 100,
      windowSeconds: 1.5,
      target: 'http://127.0.0.1:8080',
      seconds: 60,
      notes: [],
      direct: { mysql: ms(0.1), redis: ms(0.08) },
      linkTimes: [
        { rttMs: 0, mysql: ms(0.13), redis: ms(0.11) },
        { rttMs: 2, mysql: ms(2.1), redis: ms(2.1) },
      ],
      rows: [
        {
          strategy: 'redlock',
          family: 'redis',
          expected: 'exact',
          counts: { redis: 0, redlock: 10, mysql: 2, zookeeper: 0 },
          k: 4,
          cells: [
            { rttMs: 0, goodput: ms(1000), bound: null, fraction: null, race: exactRace, windows: [] },
            { rttMs: 2, goodput: ms(100), bound: 125, fraction: 0.8, race: exactRace, windows: [] },
          ],
        },
        {
          strategy: 'sql-update',
          family: 'sql',
          expected: 'exact',
          counts: { redis: 0, redlock: 0, mysql: 1, zookeeper: 0 },
          k: 1,
          cells: [
            { rttMs: 0, goodput: ms(3000), bound: null, fraction: null, race: exactRace, windows: [] },
            { rttMs: 2, goodput: ms(2000), bound: 500, fraction: 4, race: { ...exactRace, ok: 101, oversold: 1 }, windows: [] },
          ],
        },
      ],
    };
    const md = renderSweepMarkdown(report);
    expect(md).toContain('| strategy | k | sold/s at 0 ms | bound at 0 ms | fraction | race | sold/s at 2 ms | bound at 2 ms | fraction | race |');
    expect(md).toContain('| redlock | 4.0 | 1000 (900–1100) | – | – | exact | 100 (90–110) | 125 | 0.80 | exact |');
    expect(md).toContain('| sql-update | 1.0 |');
    expect(md).toContain('| 2000 (1800–2200) | 500 | 4.00 | OVERSOLD 1 |');
    expect(md).toMatch(/sql-update at 2 ms sells 4\.0× its bound/);
    expect(md).toContain('| through the forwarders at 2 ms | 2100 µs (1890–2310) | 2100 µs (1890–2310) |');
    expect(renderSweepHtml(report)).toContain('<svg');
    // --lang zh: Chinese headings around the same figures
    const zh = renderSweepMarkdown(report, 'zh');
    expect(zh.split('\n')[0]).toMatch(/^## stocklab 往返时延扫描 /);
    expect(zh).not.toContain('| strategy | k |');
    expect(zh).toContain('| redlock | 4.0 | 1000 (900–1100) |');
    // an older report: 20 requests a link, no forwarder cost measured in turn
    expect(md).toContain('| one request, median of 20 (min–max) |');
    expect(md).not.toContain('own cost');
    const paired = renderSweepMarkdown({ ...report, linkSamples: 200, forwarderCost: { mysql: 0.0351, redis: -0.002 } });
    expect(paired).toContain('| one request, median of 200 (min–max) |');
    expect(paired).toContain("| a forwarder's own cost at 0 (timed in turn with the direct link) | +35 µs | −2 µs |");
    expect(renderSweepHtml({ ...report, linkSamples: 200, forwarderCost: { mysql: 0.0351, redis: 0.04 } })).toContain(
      '往返为 0 时一个转发器自身的开销（与直连交替计时）',
    );
  });

  it('shows, for a run with a short lease, what is left of it once held and what the race sold and refused at each round trip', () => {
    const ms = (v: number) => spreadOf([v, v, v]);
    const lostAll: RaceFigures = {
      ...exactRace,
      ok: 0,
      soldOut: 0,
      byAnswer: { '503 lock_lost': 108, '503 lock_timeout': 2 },
      refused: 110,
      left: 100,
      deducted: 0,
    };
    const base: SweepReport = {
      kind: 'rtt-sweep',
      stamp: 's',
      date: 'd',
      machine: { nproc: 2, cpu: 'cpu', node: 'v20' },
      rtts: [0, 10],
      rounds: 3,
      connections: 100,
      windowSeconds: 1.5,
      target: 'http://127.0.0.1:8080',
      seconds: 60,
      notes: [],
      direct: { mysql: ms(0.1), redis: ms(0.08) },
      linkTimes: [],
      rows: [
        {
          strategy: 'redlock',
          family: 'redlock',
          expected: 'exact',
          counts: { redis: 0, redlock: 10, mysql: 2, zookeeper: 0 },
          k: 4,
          cells: [
            { rttMs: 0, goodput: ms(300), bound: null, fraction: null, race: exactRace, windows: [] },
            { rttMs: 10, goodput: ms(0), bound: 25, fraction: 0, race: lostAll, windows: [] },
          ],
        },
      ],
    };
    const report: SweepReport = { ...base, params: { ttlMs: 20 } };
    const md = sweepLeaseBlock(report, 'docs/runs/x.json');
    // 20 − (0.2 + 2) − r: 17.8 ms at 0, 7.8 ms at 10
    expect(md).toContain('| redlock | 0 ms | 17.8 ms | 300 | 100 | 0 | 0 | exact |');
    expect(md).toContain('| redlock | 10 ms | 7.8 ms | 0 | 0 | 108 | 2 | exact |');
    expect(md).toContain('`ttlMs=20`');
    expect(sweepLeaseBlock(report, 'docs/runs/x.json', 'zh')).toContain('| redlock | 10 毫秒 | 7.8 ms | 0 | 0 | 108 | 2 | 准确 |');
    // a sweep run without --ttlMs has no lease to show
    expect(() => sweepLeaseBlock(base, 'docs/runs/x.json')).toThrow(/--ttlMs/);
  });
});
