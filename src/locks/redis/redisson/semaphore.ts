import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisCall } from '../../../redis-client/call.js';
import { runLua } from '../../../redis-client/lua.js';
import { LockNotHeldError } from '../../errors.js';
import { HoldCounter } from '../../holds.js';
import { leaseOf, neverLost, ownerOf, type AcquireOptions, type Lease, type Lock } from '../../lock.js';
import { RECHECK_MS, waitOnChannel, type Attempt } from '../wait/channel-wait.js';
import { semaphoreKeys } from '../keys.js';
import { undoIfReplyLost } from '../lost-reply.js';
import type { ReleaseNotifier } from '../wait/release-notifier.js';
import type { Renewal } from '../hash/renewal.js';
import { renewedLease } from '../hash/renewed-lease.js';


export interface PermitCount {
  /** Permits free now. */
  left: number;
  /** What the trySetPermits that won asked for. */
  set: number;
}

/**
 * docs/course.md §2.10.6, Redisson's RSemaphore: a count of permits in Redis. trySetPermits sets it
 * once (the first call wins); acquire takes a permit, waiting up to waitMs for one to be given back
 * (each release wakes one waiter per instance); release gives it back. A permit belongs to nobody:
 * one whose holder dies is gone for good (see ExpirableSemaphore). As a Lock it is keyed by the
 * semaphore's name, and lets `permits` holders in at once.
 */
export class Semaphore implements Lock {
  constructor(
    protected readonly redis: Redis,
    protected readonly notifier: ReleaseNotifier,
  ) {}

  /** Sets `permits` unless the semaphore already has permits set; true when this call set them. */
  async trySetPermits(name: string, permits: number): Promise<boolean> {
    const { permits: left, total, channel } = semaphoreKeys(name);
    return (await redisCall(() => runLua(this.redis, 'semaphore-try-set', [left, total, channel], [permits]))) === 1;
  }

  async count(name: string): Promise<PermitCount> {
    const { permits, total } = semaphoreKeys(name);
    const [left, set] = await redisCall(() => this.redis.mget(permits, total));
    return { left: Number(left ?? 0), set: Number(set ?? 0) };
  }

  async acquire(name: string, opts: AcquireOptions): Promise<Lease> {
    ownerOf(opts);
    const { permits, channel } = semaphoreKeys(name);
    const release = () => redisCall(() => runLua(this.redis, 'semaphore-release', [permits, channel]));
    await this.waitForPermit(name, opts, async () => {
      // Not undone when the reply is lost: without an id, giving back a permit that was perhaps never
      // taken could let permits + 1 in. It stays taken (ExpirableSemaphore's come back by themselves).
      const taken = await redisCall(() => runLua(this.redis, 'semaphore-acquire', [permits]));
      return taken === 1 ? { done: true, value: undefined } : { done: false, hintMs: -1 };
    });
    return leaseOf(name, neverLost, release);
  }

  protected waitForPermit<T>(name: string, opts: AcquireOptions, attempt: () => Promise<Attempt<T>>): Promise<T> {
    const { channel } = semaphoreKeys(name);
    return waitOnChannel(this.notifier, { resource: name, waitMs: opts.waitMs, signal: opts.signal, channel, wakes: 'one', recheckMs: RECHECK_MS }, attempt);
  }
}

/**
 * Redisson's RPermitExpirableSemaphore: each permit taken has an id and a lease of ttlMs, kept
 * alive by the watchdog while its holder lives. A holder that dies stops renewing, and its permit
 * comes back by itself when the lease ends (counted back at the next acquire). Waiters also wake
 * when the soonest lease ends.
 */
export class ExpirableSemaphore extends Semaphore {
  private readonly holds = new HoldCounter<Renewal>();

  override async acquire(name: string, opts: AcquireOptions): Promise<Lease> {
    const owner = ownerOf(opts);
    const { permits, leases, channel } = semaphoreKeys(name);
    const permit = `${owner}:${randomUUID()}`;
    const hold = {
      release: async () => {
        const given = await redisCall(() => runLua(this.redis, 'semaphore-expirable-release', [permits, leases, channel], [permit]));
        if (given !== 1) throw new LockNotHeldError(name);
      },
      renew: async () => (await redisCall(() => runLua(this.redis, 'semaphore-expirable-renew', [leases], [permit, opts.ttlMs]))) === 1,
    };
    let sentAt = 0;
    await this.waitForPermit(name, opts, async () => {
      sentAt = Date.now();
      const [taken, hintMs] = (await undoIfReplyLost(
        () => redisCall(() => runLua(this.redis, 'semaphore-expirable-acquire', [permits, leases], [permit, opts.ttlMs])),
        () => hold.release(),
      )) as [number, number];
      return taken === 1 ? { done: true, value: undefined } : { done: false, hintMs };
    });
    // Every permit is a hold of its own: keyed by its id, never shared.
    return renewedLease(this.holds, { resource: name, owner: permit }, hold, opts.ttlMs, sentAt);
  }
}
