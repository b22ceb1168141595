// The reentrant hash lock's three scripts (acquire, release, renew) for one resource and owner,
// shared by the reentrant, watchdog and pub/sub variants, which differ only in how they wait
// and whether they renew.
import type { Redis } from 'ioredis';
import { runLua } from '../../redis/lua.js';
import { LockNotHeldError } from '../errors.js';
import { hashLockKey, releaseChannel } from './keys.js';
import { redisCall } from '../../redis/call.js';

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

  /** undefined once held (first time or re-entered); otherwise the holder's remaining lease in ms (−1: none). */
  async tryAcquire(): Promise<number | undefined> {
    const pttl = await redisCall(() => runLua(this.redis, 'lock-reentrant-acquire', [this.key], [this.owner, this.ttlMs]));
    return pttl === null ? undefined : Number(pttl);
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
