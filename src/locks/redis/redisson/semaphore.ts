// Redisson's RSemaphore (course §2.10.6), permits in Redis that belong to nobody, and its
// RPermitExpirableSemaphore, whose permits have a renewed lease and come back when a holder dies.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisCall } from '../../../redis-client/call.js';
import { isOne, luaScript } from '../../../redis-client/lua.js';
import { LockNotHeldError } from '../../errors.js';
import { HoldCounter } from '../../holds.js';
import { leaseOf, neverLost, ownerOf, type AcquireOptions, type Lease, type Lock } from '../../lock.js';
import { RECHECK_MS, waitOnChannel, type Attempt } from '../wait/channel-wait.js';
import { semaphoreKeys } from '../keys.js';
import { undoIfReplyLost } from '../lost-reply.js';
import type { ReleaseNotifier } from '../wait/release-notifier.js';
import type { Renewal } from '../hash/renewal.js';
import { renewedLease } from '../hash/renewed-lease.js';

const semaphoreTrySet = luaScript('semaphore-try-set', ['permits', 'total', 'channel'], ['permits'], isOne);
const semaphoreAcquire = luaScript('semaphore-acquire', ['permits'], [], isOne);
/** The permits left, or −1 when the semaphore is gone. */
const semaphoreRelease = luaScript('semaphore-release', ['permits', 'channel'], [], (raw) => raw as number);
/** [1, 0] when taken; [0, ms until the soonest lease ends (−1: none)] when none is left. */
const expirableAcquire = luaScript('semaphore-expirable-acquire', ['permits', 'leases'], ['permit', 'ttlMs'], (raw) => raw as [taken: number, hintMs: number]);
const expirableRelease = luaScript('semaphore-expirable-release', ['permits', 'leases', 'channel'], ['permit'], isOne);
const expirableRenew = luaScript('semaphore-expirable-renew', ['leases'], ['permit', 'ttlMs'], isOne);

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
    return redisCall(() => semaphoreTrySet.run(this.redis, semaphoreKeys(name), { permits }));
  }

  async count(name: string): Promise<PermitCount> {
    const { permits, total } = semaphoreKeys(name);
    const [left, set] = await redisCall(() => this.redis.mget(permits, total));
    return { left: Number(left ?? 0), set: Number(set ?? 0) };
  }

  async acquire(name: string, opts: AcquireOptions): Promise<Lease> {
    ownerOf(opts);
    const keys = semaphoreKeys(name);
    const release = () => redisCall(() => semaphoreRelease.run(this.redis, keys, {}));
    await this.waitForPermit(name, opts, async () => {
      // Not undone when the reply is lost: without an id, giving back a permit that was perhaps never
      // taken could let permits + 1 in. It stays taken (ExpirableSemaphore's come back by themselves).
      const taken = await redisCall(() => semaphoreAcquire.run(this.redis, keys, {}));
      return taken ? { done: true, value: undefined } : { done: false, hintMs: -1 };
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
    const keys = semaphoreKeys(name);
    const permit = `${owner}:${randomUUID()}`;
    const hold = {
      release: async () => {
        const given = await redisCall(() => expirableRelease.run(this.redis, keys, { permit }));
        if (!given) throw new LockNotHeldError(name);
      },
      renew: () => redisCall(() => expirableRenew.run(this.redis, keys, { permit, ttlMs: opts.ttlMs })),
    };
    let sentAt = 0;
    await this.waitForPermit(name, opts, async () => {
      sentAt = Date.now();
      const [taken, hintMs] = await undoIfReplyLost(
        () => redisCall(() => expirableAcquire.run(this.redis, keys, { permit, ttlMs: opts.ttlMs })),
        () => hold.release(),
      );
      return taken === 1 ? { done: true, value: undefined } : { done: false, hintMs };
    });
    // Every permit is a hold of its own: keyed by its id, never shared.
    return renewedLease(this.holds, { resource: name, owner: permit }, hold, opts.ttlMs, sentAt);
  }
}
