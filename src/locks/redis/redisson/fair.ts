// redis-fair (course §2.10.2, Redisson's fair lock): the reentrant hash lock granted in ticket
// order across instances; a release wakes only the next in line, a vanished waiter is dropped.
import type { Redis } from 'ioredis';
import { redisCall } from '../../../redis-client/call.js';
import { luaScript } from '../../../redis-client/lua.js';
import { LockNotHeldError } from '../../errors.js';
import { HoldCounter } from '../../holds.js';
import { ownerOf, type AcquireOptions, type Lease, type Lock } from '../../lock.js';
import { waitOnChannel, type Attempt } from '../wait/channel-wait.js';
import { lockReentrantRenew } from '../hash/hash-lock-scripts.js';
import { fairLockKeys, fenceCounterKey } from '../keys.js';
import { undoIfReplyLost } from '../lost-reply.js';
import type { ReleaseNotifier } from '../wait/release-notifier.js';
import type { Renewal, Renewable } from '../hash/renewal.js';
import { renewedLease } from '../hash/renewed-lease.js';

/**
 * How long a waiter keeps its place in line without asking again: past it, the waiter counts as
 * gone (its instance died) and the next one is served. Redisson's fair lock waits 5 s for a
 * vanished waiter (course §2.10.2). Waiters ask again every third of it.
 */
export const STAY_IN_LINE_MS = 5_000;
const ASK_AGAIN_MS = Math.floor(STAY_IN_LINE_MS / 3);

export interface FairLease extends Lease {
  /** The ticket drawn on joining the line (or at the grant, when the line was empty): FIFO order. */
  readonly ticket: number;
  fencingToken(): Promise<bigint>;
}

const LINE_KEYS = ['lock', 'queue', 'alive', 'channel'] as const;
/** [1, token, ticket] when held (or re-entered); [0, ms until asking again, ticket] when in line. */
const fairAcquire = luaScript(
  'fair-acquire',
  ['lock', 'queue', 'alive', 'tickets', 'fence', 'channel'],
  ['owner', 'ttlMs', 'stayInLineMs'],
  (raw) => raw as [held: number, value: number, ticket: number],
);
/** Holds left: null when this owner holds nothing, 0 when holds remain, 1 when the lock was freed. */
const fairRelease = luaScript('fair-release', LINE_KEYS, ['owner', 'ttlMs'], (raw) => raw as 0 | 1 | null);
const fairLeave = luaScript('fair-leave', LINE_KEYS, ['owner'], (raw) => raw);

interface Granted {
  token: bigint;
  ticket: number;
}

/** The fair lock's scripts for one resource and owner. */
class FairLockScripts implements Renewable {
  private readonly keys;

  constructor(
    private readonly redis: Redis,
    private readonly resource: string,
    private readonly owner: string,
    private readonly ttlMs: number,
  ) {
    this.keys = fairLockKeys(resource);
  }

  /** Held (or re-entered), or in line with a hint of when to ask again. */
  async tryAcquire(): Promise<Attempt<Granted>> {
    const keys = { ...this.keys, fence: fenceCounterKey(this.resource) };
    // A lost reply may hide a hold or a place in line: both are given back.
    const [held, value, ticket] = await undoIfReplyLost(
      () => redisCall(() => fairAcquire.run(this.redis, keys, { owner: this.owner, ttlMs: this.ttlMs, stayInLineMs: STAY_IN_LINE_MS })),
      () => this.abandon(),
    );
    return held === 1 ? { done: true, value: { token: BigInt(value), ticket } } : { done: false, hintMs: value };
  }

  /** Gives back one hold; true when that was the last one (the first in line is told). */
  async release(): Promise<boolean> {
    const left = await redisCall(() => fairRelease.run(this.redis, this.keys, { owner: this.owner, ttlMs: this.ttlMs }));
    if (left === null) throw new LockNotHeldError(this.resource);
    return left === 1;
  }

  /** Leaves the line (a waiter that gives up). */
  async leave(): Promise<void> {
    await redisCall(() => fairLeave.run(this.redis, this.keys, { owner: this.owner }));
  }

  async renew(): Promise<boolean> {
    return redisCall(() => lockReentrantRenew.run(this.redis, this.keys, { owner: this.owner, ttlMs: this.ttlMs }));
  }

  private async abandon(): Promise<void> {
    await this.release().catch((err: unknown) => {
      if (!(err instanceof LockNotHeldError)) throw err;
    });
    await this.leave();
  }
}

/**
 * docs/course.md §2.10.2, Redisson's fair lock: the reentrant hash lock, granted first come,
 * first served across every instance. Waiters line up in Redis by ticket; a release names the
 * first in line on the lock's channel, and only that waiter wakes (no herd). A waiter that gives
 * up leaves the line; one whose instance died is dropped after STAY_IN_LINE_MS. The watchdog
 * renews the lease while it is held, as Redisson's does when lock() is given no lease.
 */
export class FairLock implements Lock<FairLease> {
  readonly fencing = 'redis';

  private readonly holds = new HoldCounter<Renewal>();

  constructor(
    private readonly redis: Redis,
    private readonly notifier: ReleaseNotifier,
  ) {}

  async acquire(resource: string, opts: AcquireOptions): Promise<FairLease> {
    const owner = ownerOf(opts);
    const scripts = new FairLockScripts(this.redis, resource, owner, opts.ttlMs);
    let sentAt = 0;
    let granted: Granted;
    try {
      granted = await waitOnChannel(
        this.notifier,
        { resource, waitMs: opts.waitMs, signal: opts.signal, channel: fairLockKeys(resource).channel, wakes: { addressee: owner }, recheckMs: ASK_AGAIN_MS },
        () => {
          sentAt = Date.now();
          return scripts.tryAcquire();
        },
      );
    } catch (err) {
      // Out of line at once, not after STAY_IN_LINE_MS: those behind move up now.
      await scripts.leave().catch(() => undefined);
      throw err;
    }
    const fencingToken = async () => granted.token;
    const lease = renewedLease(this.holds, { resource, owner }, scripts, opts.ttlMs, sentAt, fencingToken);
    return { ...lease, fencingToken, ticket: granted.ticket };
  }
}
