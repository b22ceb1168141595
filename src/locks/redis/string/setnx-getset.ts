// redis-setnx-getset (companions 002, 003): the value is the lock's expiry time, taken over by
// GETSET once past. Flaws kept: clocks must agree, GETSETs race, and no owner guards the DEL.
import type { Redis } from 'ioredis';
import { leaseOf, neverLost, type AcquireOptions, type Lease, type Lock } from '../../lock.js';
import type { LockClock } from '../../lock-clock.js';
import { pollUntilAcquired } from '../../poll.js';
import { redisCall } from '../../../redis-client/call.js';
import { expiryValueLockKey } from '../keys.js';

/**
 * Companions 002 and 003 §2: the lock's value is its own expiry time, on the acquirer's clock.
 * SETNX it; when taken, GET it, and if that time has passed, GETSET a new one: whoever gets back
 * the value it read has taken the lock over. Kept flawed on purpose, as 003 lists: every server's
 * clock must agree (an instance whose clock is ahead by more than the lease takes a live lock),
 * concurrent GETSETs overwrite each other's expiry, and the lock names no owner, so the release, a
 * blind DEL, may delete another client's lock. The key carries no Redis expiry: the value is the
 * only lease there is.
 */
export class SetnxGetsetLock implements Lock {
  readonly expiry = 'lease';
  /** A SETNX or GETSET whose reply was lost leaves its timestamp behind, which the next acquirer takes over once past. */
  readonly lostAcquire = 'expires with its lease';

  constructor(
    private readonly redis: Redis,
    private readonly clock: LockClock,
  ) {}

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const key = expiryValueLockKey(resource);
    await pollUntilAcquired(resource, opts, () => this.tryOnce(key, opts.ttlMs));
    return leaseOf(resource, neverLost, () => redisCall(() => this.redis.del(key)));
  }

  private async tryOnce(key: string, ttlMs: number): Promise<boolean> {
    const expires = String(this.clock.now() + ttlMs);
    if ((await redisCall(() => this.redis.setnx(key, expires))) === 1) return true;
    const current = await redisCall(() => this.redis.get(key));
    // Not a timestamp, so not this lock's value: held, never taken over.
    if (current === null || !/^\d+$/.test(current) || Number(current) >= this.clock.now()) return false;
    const old = await redisCall(() => this.redis.getset(key, expires));
    return old === current;
  }
}
