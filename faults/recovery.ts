// "Time to recover": how long after a moment (a restart, a resume) a target deducts again. Probes
// are real deductions with their own ids, so they join the case's tally like every other request.
import { sleep } from '../src/time.js';
import type { Case, Target } from './case.js';
import { isSold, type CheckParams } from './client.js';

const PROBE_INTERVAL_MS = 100;

/** ms from `since` to the first 200 from `at`, probing one request at a time; null once `boundMs` has passed. */
export async function timeUntilSold(c: Case, at: Target, params: CheckParams, since: number, boundMs: number): Promise<number | null> {
  const deadline = since + boundMs;
  while (Date.now() < deadline) {
    const probe = await c.send(at, 'probe', params, Math.max(1_000, deadline - Date.now()));
    if (isSold(probe.outcome)) return Date.now() - since;
    await sleep(PROBE_INTERVAL_MS);
  }
  return null;
}

/** The slowest of several targets to recover (each probed in turn after `since`); null if any did not. */
export async function timeUntilAllSold(c: Case, targets: readonly Target[], params: CheckParams, since: number, boundMs: number): Promise<number | null> {
  const times = await Promise.all(targets.map((t) => timeUntilSold(c, t, params, since, boundMs)));
  return times.some((t) => t === null) ? null : Math.max(...(times as number[]));
}
