// What the soak's report says of growth (faults/soak/report.ts): the rule it judged by, or that the
// run was too short to judge, with the least --minutes that can; and a report written before the
// soak could say so keeps its own rule (the docs render kept runs again).
import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../faults/chaos/checker.js';
import { renderSlopeTable, summaryLines, type SoakReport } from '../../faults/soak/report.js';
import { judgeResource, WINDOW_MS, type Judgeability } from '../../faults/soak/verdict.js';

function report(growth: Judgeability | undefined, ok = true): SoakReport {
  const history = {
    seed: 0,
    strategies: [],
    requests: [],
    slices: [],
    faults: [],
    sales: {},
    lastHealMs: 0,
    recoveryMs: {},
    recoveryBoundMs: 0,
    leftovers: [],
    crashes: [],
    idPrefix: 'soak.',
  };
  const points = [0, 1, 2, 3, 4].map((i) => ({ t: i * 60_000, v: 80 }));
  return {
    verdict: checkHistory(history),
    samples: [],
    sampleErrors: [],
    slopes: growth ? [judgeResource('app-0 fds', points, growth, 4 * 60_000)] : [],
    goodput: {},
    rates: {},
    ok,
    failures: ok ? [] : ['app-0 fds keeps growing'],
    stamp: 'stamp',
    date: 'date',
    seconds: 1,
    machine: { nproc: 2, cpu: 'cpu', node: 'v20', platform: 'Linux' },
    options: { minutes: 2, strategies: ['sql-update'], sampleEveryMs: 10_000, turnMs: 5_400 },
    requests: 0,
    ...(growth && { growth }),
  };
}

describe('the soak report', () => {
  it('a run too short to judge says so, with the least --minutes that can, and its verdict holds', () => {
    const lines = summaryLines(
      report({ judged: false, why: 'not every strategy in the plan had a turn, so the run never left its warm-up', leastMinutes: 8.5 }),
    );
    expect(lines).toContain(
      'Growth: too short to judge: not every strategy in the plan had a turn, so the run never left its warm-up. A run of at least 8.5 min (--minutes 8.5) can judge it.',
    );
    expect(lines).toContain('Verdict: nothing oversold, every answer documented, growth too short to judge.');
    expect(lines[0]).toContain('turns of 5.4 s');
    expect(renderSlopeTable(report({ judged: false, why: 'x', leastMinutes: 8.5 }))).toContain('| not judged |');
  });

  it('a judged run states the rule it judged by', () => {
    const lines = summaryLines(report({ judged: true, fromMs: 3 * 60_000, windowMs: WINDOW_MS, windows: 6 }));
    expect(lines).toContain(
      "A resource keeps growing when, after the warm-up (every strategy's first turn, 3.0 min), the least value in each 60 s window (6 windows) rises with a least-squares slope above its bound and by more than its growth bound.",
    );
    expect(lines).toContain('Verdict: nothing oversold, every answer documented, nothing keeps growing.');
  });

  it('a report from before keeps its own rule', () => {
    expect(summaryLines(report(undefined))).toContain(
      'A resource keeps growing when its least-squares slope (after the first third of the samples) is above its bound and it grew by more than the growth bound.',
    );
  });
});
