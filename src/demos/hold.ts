// What the demo endpoints share: holding a lock for the request's workMs while a gauge counts who
// else holds it, cluster-wide. The request's signal comes from its admission (src/app.ts).
import type { Response } from 'express';
import { admittedSignal } from '../http/in-flight.js';
import type { Lock, LockOptions } from '../locks/lock.js';
import { newOwnerToken } from '../locks/owner.js';
import { withLock } from '../locks/scope.js';
import { sleep } from '../time.js';
import type { HolderCounts, HoldersGauge } from './holders-gauge.js';

export interface Hold {
  waitedMs: number;
  workMs: number;
  /** What the gauge showed when this request entered. */
  holdersSeen: HolderCounts;
  /** The lock was lost during the work (another may have held it too, and the counts would say so), or its release failed. */
  warning?: 'lock_lost_during_work' | 'release_failed';
}

/** Holds `lock` on `resource` for workMs, counted in `gauge` as `role`: how long it waited, what it saw. */
export async function holdCounted(
  lock: Lock,
  resource: string,
  opts: LockOptions & { instance: string; workMs: number; res: Response },
  gauge: HoldersGauge,
  role: string,
): Promise<Hold> {
  const signal = admittedSignal(opts.res);
  const t0 = Date.now();
  let waitedMs = 0;
  const lockOpts = { ttlMs: opts.ttlMs, waitMs: opts.waitMs, retryMs: opts.retryMs, owner: newOwnerToken(opts.instance), signal };
  const { value, releaseError } = await withLock(lock, resource, lockOpts, async (held) => {
    waitedMs = Date.now() - t0;
    const { seen } = await gauge.during(role, () => sleep(opts.workMs, signal));
    return { seen, lost: held.lost.aborted };
  });
  const warning = value.lost ? 'lock_lost_during_work' : releaseError ? 'release_failed' : undefined;
  return { waitedMs, workMs: opts.workMs, holdersSeen: value.seen, ...(warning && { warning }) };
}
