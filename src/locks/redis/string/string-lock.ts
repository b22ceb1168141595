import type { Redis } from 'ioredis';
import { LockNotHeldError } from '../../errors.js';
import { ownerOf, type AcquireOptions } from '../../lock.js';
import { pollUntilAcquired } from '../../poll.js';
import { runLua } from '../../../redis-client/lua.js';
import { redisCall } from '../../../redis-client/call.js';
import { fenceCounterKey, stringLockKey } from '../keys.js';
import { undoIfReplyLost } from '../lost-reply.js';

export interface StringLockHold {
  key: string;
  /** The value written into the key: the owner's token. */
  owner: string;
  /** The grant's fencing token. */
  token: bigint;
}

/**
 * The SETNX family's acquire: SET key owner NX (PX ttlMs when `expires`), polled every retryMs
 * until it wins or waitMs runs out. One Lua step also draws the fencing token
 * (lua/lock-string-acquire.lua). An attempt whose reply is lost is undone by an owner-checked DEL.
 */
export async function acquireStringLock(redis: Redis, resource: string, opts: AcquireOptions, expires: boolean): Promise<StringLockHold> {
  const key = stringLockKey(resource);
  const owner = ownerOf(opts);
  let token = 0n;
  await pollUntilAcquired(resource, opts, async () => {
    const granted = await undoIfReplyLost(
      () => redisCall(() => runLua(redis, 'lock-string-acquire', [key, fenceCounterKey(resource)], [owner, expires ? opts.ttlMs : 0])),
      () => releaseOwnedStringLock(redis, resource, key, owner),
    );
    if (granted === null) return false;
    token = BigInt(granted as number);
    return true;
  });
  return { key, owner, token };
}

/** Deletes the lock only if it still holds `owner` (lua/lock-owned-release.lua); LockNotHeldError otherwise. */
export async function releaseOwnedStringLock(redis: Redis, resource: string, key: string, owner: string): Promise<void> {
  const deleted = await redisCall(() => runLua(redis, 'lock-owned-release', [key], [owner]));
  if (deleted !== 1) throw new LockNotHeldError(resource);
}
