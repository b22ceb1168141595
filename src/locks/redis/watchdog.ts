import type { Redis } from 'ioredis';
import type { Lease, Lock, LockOptions } from '../lock.js';
import { currentOwner } from '../owner.js';
import { pollUntilAcquired } from '../poll.js';
import { HashLease } from './hash-lease.js';
import { Renewal } from './renewal.js';

/**
 * §2.7: the reentrant lock plus a watchdog that keeps renewing the lease while it is held, so
 * work longer than ttl keeps the lock, while a crashed holder's lock still expires after ttl.
 */
export class WatchdogLock implements Lock {
  /** One renewal per held (resource, owner); nested acquires share it. */
  private readonly renewals = new Map<string, Renewal>();

  constructor(private readonly redis: Redis) {}

  async acquire(resource: string, opts: LockOptions): Promise<Lease> {
    const lease = new HashLease(this.redis, resource, currentOwner(), opts.ttlMs);
    let sentAt = 0;
    await pollUntilAcquired(resource, opts, async () => {
      sentAt = Date.now();
      return (await lease.tryAcquire()) === undefined;
    });
    const id = `${resource}\n${lease.owner}`;
    let held = this.renewals.get(id);
    if (!held) {
      held = new Renewal(lease, opts.ttlMs, sentAt);
      this.renewals.set(id, held);
    }
    held.holds++;
    const renewal = held;
    return {
      lost: renewal.lost,
      release: async () => {
        // Counted down before the await, so an acquire by the same owner meanwhile keeps it alive.
        renewal.holds--;
        let freed = true;
        try {
          freed = await lease.release();
        } finally {
          // Stop renewing once the last hold is gone, or once the release shows the lock is not ours.
          if (freed && renewal.holds === 0) {
            renewal.stop();
            if (this.renewals.get(id) === renewal) this.renewals.delete(id);
          }
        }
      },
    };
  }
}
