// What every chaos test asserts of a run, and prints: safety exactly (each strategy exact, or not
// exact only where the catalog allows it), no phantom sale, nothing left held, no server exiting
// unasked; recovery within its bound, with the figures printed.
import { expect } from 'vitest';
import { checkHistory } from '../../faults/chaos/checker.js';
import { RECOVERY_BOUND_MS, type ChaosResult } from '../../faults/chaos/run.js';

export function expectChaosHolds(r: ChaosResult, label: string): void {
  const kinds = r.history.faults.map((f) => `${f.kind}${f.note ? ` (${f.note})` : ''}`).join(', ');
  console.log(`[${label}] ${r.history.faults.length} faults (${kinds}); ${r.history.requests.length} requests checked`);
  for (const v of r.verdict.strategies) {
    console.log(
      `[liveness] ${label} ${v.strategy}${v.fenced ? ' fenced' : ''}: sold ${v.sold}, deducted ${v.deducted}, unknown ${v.unknown}, refused ${v.refused}; recovered in ${v.recoveryMs ?? 'never'} ms (bound ${RECOVERY_BOUND_MS} ms)${v.asCatalogSays ? `; reported (${v.allowedBy}): ${v.problems.join('; ')}` : ''}`,
    );
  }
  if (r.history.crashes.length > 0)
    console.log(`[${label}] servers that exited with no fault on them (restarted): ${r.history.crashes.map((c) => `${c.target} at ${c.atMs} ms`).join(', ')}`);
  expect(r.history.requests.length).toBeGreaterThan(0);
  expect(r.history.faults.length).toBeGreaterThan(0);
  // No server goes down unless the nemesis put it down (a ZooKeeper frozen and resumed once made every instance exit).
  expect(r.history.crashes).toEqual([]);
  const unsafe = r.verdict.strategies
    .filter((v) => !v.exact && !v.asCatalogSays)
    .map((v) => ({ strategy: v.strategy, problems: v.problems, answers: v.answers }));
  expect(unsafe).toEqual([]);
  expect(r.verdict.phantomSales).toEqual([]);
  // Every answer 500 an instance logged (the run's own reads and resets included) is a bug.
  expect(r.internalErrors, r.verdict.failures.join('; ')).toBe(0);
  expect(r.verdict.leftovers).toEqual([]);
  for (const v of r.verdict.strategies) {
    expect(v.recoveryMs, v.strategy).not.toBeNull();
    expect(v.recoveryMs!, v.strategy).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
  }
  // the same history, judged again, gives the same verdict: the checker reads nothing else
  expect(checkHistory(r.history)).toEqual(r.verdict);
}
