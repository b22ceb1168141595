import type { Redis } from 'ioredis';
import { runLua } from '../../redis/lua.js';
import { LockNotHeldError } from '../errors.js';
import { leaseOf, neverLost, type AcquireOptions, type Lease, type Lock } from '../lock.js';
import { redisCall } from '../../redis/call.js';
import { pollStringLock } from './string-lock.js';

/**
 * docs/course.md §2.3–2.5: the lock's value is the owner's unique token and the release compares and deletes in
 * one Lua step, so nobody deletes another holder's lock. The lease can still run out mid-work.
 */
export class OwnedLock implements Lock {
  constructor(private readonly redis: Redis) {}

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const { key, owner } = await pollStringLock(resource, opts, async (k, o) => (await this.redis.set(k, o, 'PX', opts.ttlMs, 'NX')) === 'OK');
    return leaseOf(resource, neverLost, async () => {
      const deleted = await redisCall(() => runLua(this.redis, 'lock-owned-release', [key], [owner]));
      if (deleted !== 1) throw new LockNotHeldError(resource);
    });
  }
}
