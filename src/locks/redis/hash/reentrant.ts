// redis-reentrant (course §2.6): a Redis hash of owner → hold count, run by Lua scripts, so one
// request can nest its acquires. Waits by polling and renews nothing.
import type { Redis } from 'ioredis';
import { leaseOf, neverLost, ownerOf, type AcquireOptions, type Lease, type Lock } from '../../lock.js';
import { pollUntilAcquired } from '../../poll.js';
import { HashLockScripts } from './hash-lock-scripts.js';

/**
 * docs/course.md §2.6: a hash owner → hold count in Lua, so the same request can take the lock again (the
 * owner is the one named in the options: one token per request). Waiting is plain polling.
 */
export class ReentrantLock implements Lock {
  readonly fencing = 'redis';
  readonly expiry = 'lease';
  readonly lostAcquire = 'released by its owner';

  constructor(private readonly redis: Redis) {}

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const scripts = new HashLockScripts(this.redis, resource, ownerOf(opts), opts.ttlMs);
    let token = 0n;
    await pollUntilAcquired(resource, opts, async () => {
      const attempt = await scripts.tryAcquire();
      if (attempt.held) token = attempt.token;
      return attempt.held;
    });
    return leaseOf(
      resource,
      neverLost,
      () => scripts.release(),
      async () => token,
    );
  }
}
