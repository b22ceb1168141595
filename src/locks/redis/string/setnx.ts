// redis-setnx (course §2.1): SETNX to lock, DEL to unlock, retry after a sleep. Flaw kept: no
// expiry, so a holder that dies before its DEL leaves the lock for good.
import type { Redis } from 'ioredis';
import { leaseOf, neverLost, type Lease, type Lock, type AcquireOptions } from '../../lock.js';
import { redisCall } from '../../../redis-client/call.js';
import { acquireStringLock } from './string-lock.js';

/**
 * The course's first Redis lock (docs/course.md §2.1): SETNX, DEL, retry after a sleep. No expiry, so a holder
 * that dies between SETNX and DEL leaves the lock behind for good.
 */
export class SetnxLock implements Lock {
  readonly fencing = 'redis';
  readonly expiry = 'none';
  readonly lostAcquire = 'released by its owner';

  constructor(private readonly redis: Redis) {}

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const { key, token } = await acquireStringLock(this.redis, resource, opts, false);
    return leaseOf(
      resource,
      neverLost,
      () => redisCall(() => this.redis.del(key)),
      async () => token,
    );
  }
}
