// redis-owned (course §2.3–2.5): the owner's token as value, and a release that compares and
// deletes in one Lua step, so nobody deletes another holder's lock. The lease can still run out.
import type { Redis } from 'ioredis';
import { leaseOf, neverLost, type AcquireOptions, type Lease, type Lock } from '../../lock.js';
import { acquireStringLock, releaseOwnedStringLock } from './string-lock.js';

/**
 * docs/course.md §2.3–2.5: the lock's value is the owner's unique token and the release compares and deletes in
 * one Lua step, so nobody deletes another holder's lock. The lease can still run out mid-work.
 */
export class OwnedLock implements Lock {
  readonly fencing = 'redis';
  readonly expiry = 'lease';
  readonly lostAcquire = 'released by its owner';
  /** The same stop as redis-owned-get-del's, right before the release's delete: here the check comes with it. */
  readonly pausePoints = ['before-del'] as const;

  constructor(private readonly redis: Redis) {}

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const { key, owner, token } = await acquireStringLock(this.redis, resource, opts, true);
    const release = () => {
      opts.pause?.('before-del');
      return releaseOwnedStringLock(this.redis, resource, key, owner);
    };
    return leaseOf(resource, neverLost, release, async () => token);
  }
}
