import type { Redis } from 'ioredis';
import { neverLost, type Lease, type Lock, type LockOptions } from '../lock.js';
import { currentOwner } from '../owner.js';
import { pollUntilAcquired } from '../poll.js';
import { HashLease } from './hash-lease.js';

/**
 * §2.6: a hash owner → hold count in Lua, so the same request can take the lock again (the
 * owner is the request's async context, see owner.ts). Waiting is plain polling.
 */
export class ReentrantLock implements Lock {
  constructor(private readonly redis: Redis) {}

  async acquire(resource: string, opts: LockOptions): Promise<Lease> {
    const lease = new HashLease(this.redis, resource, currentOwner(), opts.ttlMs);
    await pollUntilAcquired(resource, opts, async () => (await lease.tryAcquire()) === undefined);
    return { lost: neverLost, release: async () => void (await lease.release()) };
  }
}
