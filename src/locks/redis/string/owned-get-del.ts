// redis-owned-get-del (course §2.3): the owner's token as value, released by GET, compare, DEL in
// the app. Flaw kept: a lease ending between the GET and the DEL lets it delete another's lock.
import type { Redis } from 'ioredis';
import { LockNotHeldError } from '../../errors.js';
import { leaseOf, neverLost, type AcquireOptions, type Lease, type Lock } from '../../lock.js';
import { redisCall } from '../../../redis-client/call.js';
import { acquireStringLock } from './string-lock.js';

/**
 * docs/course.md §2.3, before the Lua of §2.5: the lock's value is the owner's token, and the
 * release checks it in application code: GET, compare, then DEL. Kept flawed on purpose (删除操作
 * 缺乏原子性): a lease that ends between the GET and the DEL lets another client take the lock,
 * and the DEL removes that client's lock (pause=before-del stops the process between the two).
 */
export class OwnedGetDelLock implements Lock {
  readonly fencing = 'redis';
  readonly expiry = 'lease';
  readonly lostAcquire = 'released by its owner';
  readonly pausePoints = ['before-del'] as const;

  constructor(private readonly redis: Redis) {}

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const { key, owner, token } = await acquireStringLock(this.redis, resource, opts, true);
    const release = async () => {
      if ((await redisCall(() => this.redis.get(key))) !== owner) throw new LockNotHeldError(resource);
      opts.pause?.('before-del');
      await redisCall(() => this.redis.del(key));
    };
    return leaseOf(resource, neverLost, release, async () => token);
  }
}
