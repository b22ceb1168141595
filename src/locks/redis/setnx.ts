import type { Redis } from 'ioredis';
import { leaseOf, neverLost, type Lease, type Lock, type AcquireOptions } from '../lock.js';
import { redisCall } from '../../redis/call.js';
import { pollStringLock } from './string-lock.js';

/**
 * The course's first Redis lock (docs/course.md §2.1): SETNX, DEL, retry after a sleep. No expiry, so a holder
 * that dies between SETNX and DEL leaves the lock behind for good.
 */
export class SetnxLock implements Lock {
  constructor(private readonly redis: Redis) {}

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const { key } = await pollStringLock(resource, opts, async (k, owner) => (await this.redis.setnx(k, owner)) === 1);
    return leaseOf(resource, neverLost, () => redisCall(() => this.redis.del(key)));
  }
}
