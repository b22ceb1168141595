// redis-multi (course §2.10.3, Redisson's RedissonMultiLock): several locks as one, all or nothing,
// taken in a fixed order and released in reverse; lost as soon as any part is lost.
import { LockTimeoutError } from '../../errors.js';
import { leaseOf, releaseAll, type AcquireOptions, type Lease, type Lock } from '../../lock.js';
import { remaining } from '../../../time.js';

/**
 * docs/course.md §2.10.3, Redisson's RedissonMultiLock: several locks (each may live on another
 * server) taken as one, all or nothing. They are taken one after the other, always in the same
 * order (so two multi-locks never hold parts of each other), each within what is left of waitMs;
 * when one cannot be had, every part already taken is given back and the acquire fails. Held, it
 * is lost as soon as any part is lost, and released part by part in reverse order, so the first
 * lock, the one contenders queue on, is freed last, when the others are free to take.
 */
export class MultiLock implements Lock {
  readonly fencing;

  constructor(private readonly parts: readonly [Lock, ...Lock[]]) {
    // The first part's tokens fence the whole: holding the multi-lock means holding the first part.
    this.fencing = parts[0].fencing;
  }

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const deadline = Date.now() + opts.waitMs;
    const held: Lease[] = [];
    try {
      for (const part of this.parts) {
        const left = remaining(deadline);
        // The first part may wait all of waitMs; a later one gets what is left, and none at all is a timeout.
        if (held.length > 0 && left <= 0) throw new LockTimeoutError(resource, opts.waitMs);
        held.push(await part.acquire(resource, { ...opts, waitMs: left }));
      }
    } catch (err) {
      await releaseAll(held).catch(() => undefined);
      throw err;
    }
    const lost = AbortSignal.any(held.map((l) => l.lost));
    const first = held[0];
    return leaseOf(resource, lost, () => releaseAll(held), first?.fencingToken && (() => first.fencingToken!()));
  }
}
