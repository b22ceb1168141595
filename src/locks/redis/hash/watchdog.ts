// redis-watchdog (course §2.7): the reentrant hash lock plus a watchdog renewing its lease while
// held, so long work keeps the lock and a crashed holder's lock still expires after ttl.
import type { Redis } from 'ioredis';
import { HoldCounter } from '../../holds.js';
import { ownerOf, type AcquireOptions, type Lease, type Lock } from '../../lock.js';
import { pollUntilAcquired } from '../../poll.js';
import { HashLockScripts } from './hash-lock-scripts.js';
import type { Renewal } from './renewal.js';
import { renewedLease } from './renewed-lease.js';

/**
 * docs/course.md §2.7: the reentrant lock plus a watchdog that keeps renewing the lease while it is held, so
 * work longer than ttl keeps the lock, while a crashed holder's lock still expires after ttl.
 */
export class WatchdogLock implements Lock {
  readonly fencing = 'redis';
  readonly expiry = 'lease';
  readonly lostAcquire = 'released by its owner';

  /** Redis counts the holds for the lock; these count them for the renewal nested holds share. */
  private readonly holds = new HoldCounter<Renewal>();

  constructor(private readonly redis: Redis) {}

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const owner = ownerOf(opts);
    const scripts = new HashLockScripts(this.redis, resource, owner, opts.ttlMs);
    let sentAt = 0;
    let token = 0n;
    await pollUntilAcquired(resource, opts, async () => {
      sentAt = Date.now();
      const attempt = await scripts.tryAcquire();
      if (attempt.held) token = attempt.token;
      return attempt.held;
    });
    return renewedLease(this.holds, { resource, owner }, scripts, opts.ttlMs, sentAt, async () => token);
  }
}
