// redis-setnx-ex (course §2.2): SET NX PX sets the lock and its expiry in one command. Flaw kept:
// the release is a blind DEL, which frees the next holder's lock once this lease has run out.
import type { Redis } from 'ioredis';
import { leaseOf, neverLost, type Lease, type Lock, type AcquireOptions } from '../../lock.js';
import { redisCall } from '../../../redis-client/call.js';
import { acquireStringLock } from './string-lock.js';

/**
 * docs/course.md §2.2: SET key value PX ttl NX sets the lock and its expiry in one command, so a crashed holder's
 * lock expires. The release is still a blind DEL: a holder whose lease ran out deletes whoever
 * holds the lock by then.
 */
export class SetnxExpiryLock implements Lock {
  readonly fencing = 'redis';
  readonly expiry = 'lease';
  readonly lostAcquire = 'released by its owner';

  constructor(private readonly redis: Redis) {}

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const { key, token } = await acquireStringLock(this.redis, resource, opts, true);
    return leaseOf(
      resource,
      neverLost,
      () => redisCall(() => this.redis.del(key)),
      async () => token,
    );
  }
}
