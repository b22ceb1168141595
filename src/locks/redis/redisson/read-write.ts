// Redisson's RReadWriteLock (course §2.10.5): many readers or one writer, reentrant per owner, each
// hold with its own watchdog-renewed lease; waiters wake on a release message or a lease's end.
import type { Redis } from 'ioredis';
import { redisCall } from '../../../redis-client/call.js';
import { isOne, luaScript } from '../../../redis-client/lua.js';
import { LockNotHeldError } from '../../errors.js';
import { HoldCounter } from '../../holds.js';
import { ownerOf, type AcquireOptions, type Lease, type Lock } from '../../lock.js';
import { RECHECK_MS, waitOnChannel } from '../wait/channel-wait.js';
import { readWriteLockKeys } from '../keys.js';
import { undoIfReplyLost } from '../lost-reply.js';
import type { ReleaseNotifier } from '../wait/release-notifier.js';
import type { Renewal, Renewable } from '../hash/renewal.js';
import { renewedLease } from '../hash/renewed-lease.js';

export type ReadWriteMode = 'read' | 'write';

/** [1, 0] when held; [0, ms until the soonest lease ends (−1: none)] when refused. */
const rwAcquire = luaScript('rw-acquire', ['lock', 'leases'], ['owner', 'mode', 'ttlMs'], (raw) => raw as [held: number, hintMs: number]);
/** null when this owner holds nothing in this mode, 0 when holds remain, 1 when its last one went. */
const rwRelease = luaScript('rw-release', ['lock', 'leases', 'channel'], ['owner', 'mode'], (raw) => raw as 0 | 1 | null);
const rwRenew = luaScript('rw-renew', ['lock', 'leases'], ['owner', 'mode', 'ttlMs'], isOne);

/** One owner's hold of a read-write lock in one mode. */
class ReadWriteScripts implements Renewable {
  private readonly keys;

  constructor(
    private readonly redis: Redis,
    private readonly resource: string,
    private readonly owner: string,
    private readonly mode: ReadWriteMode,
    private readonly ttlMs: number,
  ) {
    this.keys = readWriteLockKeys(resource);
  }

  /** Held, or refused with the ms until the soonest lease ends (−1: none). */
  async tryAcquire(): Promise<{ done: true; value: undefined } | { done: false; hintMs: number }> {
    const [held, value] = await undoIfReplyLost(
      () => redisCall(() => rwAcquire.run(this.redis, this.keys, { owner: this.owner, mode: this.mode, ttlMs: this.ttlMs })),
      () => this.release(),
    );
    return held === 1 ? { done: true, value: undefined } : { done: false, hintMs: value };
  }

  async release(): Promise<void> {
    const left = await redisCall(() => rwRelease.run(this.redis, this.keys, { owner: this.owner, mode: this.mode }));
    if (left === null) throw new LockNotHeldError(this.resource);
  }

  async renew(): Promise<boolean> {
    return redisCall(() => rwRenew.run(this.redis, this.keys, { owner: this.owner, mode: this.mode, ttlMs: this.ttlMs }));
  }
}

/**
 * docs/course.md §2.10.5, Redisson's RReadWriteLock: `read` is shared by any number of readers,
 * `write` is held by one writer alone; both are reentrant per owner. The writer may take the read
 * lock too (a downgrade); a reader asking for the write lock waits like any other writer, for
 * itself as well, until waitMs. Each hold has its own lease, renewed by the watchdog while held,
 * so a dead holder's hold ends after ttlMs and the others' do not. Waiters sleep until a release
 * that may let them in is published (every waiter of this process wakes: a writer leaving lets all
 * readers in) or the soonest lease ends.
 */
export class ReadWriteLock {
  readonly read: Lock;
  readonly write: Lock;

  /** Redis counts the holds; these count them for the renewal nested holds of one owner and mode share. */
  private readonly holds = new HoldCounter<Renewal>();

  constructor(
    private readonly redis: Redis,
    private readonly notifier: ReleaseNotifier,
  ) {
    this.read = { acquire: (resource, opts) => this.acquire('read', resource, opts) };
    this.write = { acquire: (resource, opts) => this.acquire('write', resource, opts) };
  }

  private async acquire(mode: ReadWriteMode, resource: string, opts: AcquireOptions): Promise<Lease> {
    const owner = ownerOf(opts);
    const scripts = new ReadWriteScripts(this.redis, resource, owner, mode, opts.ttlMs);
    let sentAt = 0;
    await waitOnChannel(
      this.notifier,
      { resource, waitMs: opts.waitMs, signal: opts.signal, channel: readWriteLockKeys(resource).channel, wakes: 'all', recheckMs: RECHECK_MS },
      () => {
        sentAt = Date.now();
        return scripts.tryAcquire();
      },
    );
    return renewedLease(this.holds, { resource, owner, mode }, scripts, opts.ttlMs, sentAt);
  }
}
