// zk-multi (course §3.7.4, Curator's InterProcessMultiLock): several resources held as one, all or
// none, taken in sorted order within one shared waitMs.
import type { FenceSource } from '../../fencing.js';
import { LockTimeoutError } from '../errors.js';
import { leaseOf, releaseAll, type AcquireOptions, type Lease, type Lock } from '../lock.js';
import { remaining } from '../../time.js';

/**
 * Curator's InterProcessMultiLock: several resources held as one, all or none. An acquire takes
 * them one by one; if one cannot be had within what is left of waitMs, the ones already taken are
 * given back. Release gives back every one and reports the first failure.
 *
 * Unlike Curator, the resources are taken in one order (sorted), whatever order the caller names
 * them in: two multi-locks over the same resources then never hold one each while waiting for the
 * other's. And the whole acquire shares one waitMs (Curator gives each lock the full time).
 */
export class MultiLock implements Lock {
  readonly fencing?: FenceSource;

  constructor(
    private readonly lock: Lock,
    /** The other resources held with `resource` (the strategy names them: the stock's warehouse). */
    private readonly companions: (resource: string) => readonly string[],
  ) {
    if (lock.fencing) this.fencing = lock.fencing;
  }

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const deadline = Date.now() + opts.waitMs;
    const held = new Map<string, Lease>();
    try {
      for (const r of [...new Set([resource, ...this.companions(resource)])].sort())
        held.set(r, await this.lock.acquire(r, { ...opts, waitMs: remaining(deadline) }));
    } catch (err) {
      await releaseAll([...held.values()]).catch(() => undefined);
      throw err instanceof LockTimeoutError ? new LockTimeoutError(resource, opts.waitMs) : err;
    }
    const leases = [...held.values()];
    return leaseOf(
      resource,
      AbortSignal.any(leases.map((lease) => lease.lost)),
      () => releaseAll(leases),
      // `resource`'s own token: it grows with every grant of `resource`, this lock's or a plain one's.
      held.get(resource)?.fencingToken,
    );
  }
}
