// The overload ramp's pure parts: its flags, splitting a run over load processes and merging it back,
// where p99 passes a second, and the table and charts.
import { describe, expect, it } from 'vitest';
import { mergeLoadResults, shares } from '../../src/load/fire.js';
import type { LoadResult } from '../../src/load/load.js';
import { parseBenchArgs, RAMP_STEPS, UsageError } from '../../bench/options.js';
import { p99Crossing, type RampReport, type RampStep } from '../../report/bench/ramp-results.js';
import { rampCells, renderRampHtml, renderRampMarkdown } from '../../report/bench/ramp-report.js';

const step = (strategy: string, clients: number, over: Partial<RampStep> = {}): RampStep => ({
  strategy,
  clients,
  processes: Math.ceil(clients / 2500),
  requests: 2 * clients,
  initial: clients,
  nofile: 20000,
  seconds: 2,
  truncated: false,
  goodput: clients / 2,
  p50Ms: 10,
  p99Ms: clients / 2,
  byAnswer: { '200': clients, '409 sold_out': clients / 2, '503 busy (nginx)': clients / 2 },
  noAnswer: 0,
  noAnswerBy: {},
  ok: clients,
  deducted: clients,
  oversold: 0,
  ...over,
});

const report = (results: RampStep[]): RampReport => ({
  stamp: 'ramp-x',
  date: '2026-01-01T00:00:00.000Z',
  machine: { nproc: 2, cpu: 'cpu', node: 'v20', platform: 'Linux' },
  target: 'http://127.0.0.1:1',
  strategies: ['sql-update', 'redis-pubsub'],
  steps: [100, 1000, 3000],
  params: { workMs: 0 },
  maxSeconds: 60,
  results,
  seconds: 60,
});

const load = (over: Partial<LoadResult>): LoadResult => ({
  byStatus: {},
  byAnswer: {},
  okTotal: 0,
  answeredTotal: 0,
  noAnswer: 0,
  noAnswerBy: {},
  nofile: 20000,
  seconds: 1,
  p50Ms: 0,
  p99Ms: 0,
  truncated: false,
  ...over,
});

describe('the ramp', () => {
  it('takes --ramp and --steps (sorted, deduplicated), the default steps up to 10,000', () => {
    expect(parseBenchArgs(['--ramp'])).toMatchObject({ ramp: true, steps: RAMP_STEPS });
    expect(RAMP_STEPS.at(-1)).toBe(10_000);
    expect(parseBenchArgs(['--steps', '3000,100,3000']).steps).toEqual([100, 3000]);
    expect(() => parseBenchArgs(['--steps', '0'])).toThrow(UsageError);
  });

  it('splits a run over load processes and adds their counts back, percentiles over every latency', () => {
    expect(shares(10, 4)).toEqual([3, 3, 2, 2]);
    const merged = mergeLoadResults(
      [
        load({ byAnswer: { '200': 2 }, okTotal: 2, answeredTotal: 2, latencies: [1, 2], seconds: 1, noAnswerBy: { closed: 1 }, noAnswer: 1 }),
        load({ byAnswer: { '200': 1, '503 busy (nginx)': 1 }, okTotal: 1, answeredTotal: 2, latencies: [3, 400], seconds: 3, nofile: 1024 }),
      ],
      false,
    );
    expect(merged).toMatchObject({
      byAnswer: { '200': 3, '503 busy (nginx)': 1 },
      okTotal: 3,
      answeredTotal: 4,
      noAnswer: 1,
      noAnswerBy: { closed: 1 },
      seconds: 3,
      nofile: 1024,
      p50Ms: 3,
      p99Ms: 400,
    });
    expect(merged.latencies).toBeUndefined();
  });

  it('names the step where p99 passes a second, skipping a step the client could not hold', () => {
    const r = report([step('sql-update', 100), step('sql-update', 3000, { clientLimit: 'EMFILE' }), step('redis-pubsub', 100), step('redis-pubsub', 3000)]);
    expect(p99Crossing(r, 'sql-update')).toBeUndefined();
    expect(p99Crossing(r, 'redis-pubsub')).toBe(3000);
    const md = renderRampMarkdown(r);
    expect(md).toContain('redis-pubsub: p99 passes 1 s at 3000 clients.');
    expect(md).toContain('sql-update: p99 passes 1 s at no step.');
    // --lang zh: the same table and crossings in Chinese, every figure as it is
    const zh = renderRampMarkdown(r, 'zh');
    expect(zh.split('\n')[0]).toMatch(/^## stocklab 过载阶梯 /);
    expect(zh).not.toContain('p99 passes');
    expect(zh).toContain('| redis-pubsub | 3000 |');
  });

  it('shows each 503 reason, the unanswered by cause, and oversold as a lower bound when some went unanswered', () => {
    const cells = rampCells(
      step('sql-update', 1000, {
        noAnswer: 3,
        noAnswerBy: { ECONNRESET: 2, closed: 1 },
        byAnswer: { '200': 1000, '503 busy (nginx)': 700, '503 lock_timeout': 5, '502 unreadable': 4 },
      }),
    );
    expect(cells[7]).toBe('700 busy (nginx), 5 lock_timeout');
    expect(cells[8]).toBe('4 502 unreadable');
    expect(cells[9]).toBe('3 (2 ECONNRESET, 1 closed)');
    expect(cells[10]).toBe('0 (≥)');
  });

  it('draws one line per strategy in each chart of its HTML report', () => {
    const html = renderRampHtml(report([step('sql-update', 100), step('sql-update', 1000), step('redis-pubsub', 100)]));
    // four charts, each in both languages' halves
    expect(html.match(/<svg /g)?.length).toBe(2 * 4);
    expect(html.match(/<polyline /g)?.length).toBe(2 * 8);
    expect(html).not.toContain('undefined');
  });
});
