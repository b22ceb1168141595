// The reentrant hash lock's three scripts (acquire, release, renew) for one resource and owner,
// shared by the reentrant, watchdog and pub/sub variants, which differ only in how they wait
// and whether they renew.
import type { Redis } from 'ioredis';
import { runLua } from '../../redis/lua.js';
import { LockNotHeldError } from '../errors.js';
import { fenceCounterKey, hashLockKey, releaseChannel } from './keys.js';
import { redisCall } from '../../redis/call.js';
import { undoIfReplyLost } from './lost-reply.js';

export type HashLockAttempt = { held: true; token: bigint } | { held: false; holderLeaseMs: number };

export class HashLockScripts {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    readonly resource: string,
    readonly owner: string,
    private readonly ttlMs: number,
  ) {
    this.key = hashLockKey(resource);
  }

  /** Held (first time or re-entered) with the grant's fencing token, or busy with the holder's remaining lease in ms (−1: none). */
  async tryAcquire(): Promise<HashLockAttempt> {
    // A lost reply may hide a hold: give it back (the release is owner-checked).
    const [held, value] = (await undoIfReplyLost(
      () => redisCall(() => runLua(this.redis, 'lock-reentrant-acquire', [this.key, fenceCounterKey(this.resource)], [this.owner, this.ttlMs])),
      () => this.release(),
    )) as [number, number];
    return held === 1 ? { held: true, token: BigInt(value) } : { held: false, holderLeaseMs: value };
  }

  /** Gives back one hold; true when that was the last one and the lock is free. */
  async release(): Promise<boolean> {
    const left = await redisCall(() =>
      runLua(this.redis, 'lock-reentrant-release', [this.key, releaseChannel(this.resource)], [this.owner, this.ttlMs]),
    );
    if (left === null) throw new LockNotHeldError(this.resource);
    return left === 1;
  }

  /** Extends the lease to ttlMs from now; false when this owner no longer holds it. */
  async renew(): Promise<boolean> {
    return (await redisCall(() => runLua(this.redis, 'lock-reentrant-renew', [this.key], [this.owner, this.ttlMs]))) === 1;
  }
}
