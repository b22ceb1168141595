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
    await pollUntilAcquired(resource, opts, async () => (await lease.tryAcquire()) === undefined);
    const id = `${resource}\n${lease.owner}`;
    let renewal = this.renewals.get(id);
    if (!renewal) {
      renewal = new Renewal(lease, Math.max(1, Math.floor(opts.ttlMs / 3)));
      this.renewals.set(id, renewal);
    }
    const held = renewal;
    return {
      lost: held.lost,
      release: async () => {
        let freed = true;
        try {
          freed = await lease.release();
        } finally {
          // Stop renewing once the last hold is gone, or once the release shows the lock is not ours.
          if (freed) {
            held.stop();
            this.renewals.delete(id);
          }
        }
      },
    };
  }
}
