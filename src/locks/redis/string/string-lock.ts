// What the SETNX family shares: SET NX (PX) polled until won, drawing a fencing token in the same
// Lua step, and the owner-checked Lua release (course §2.5).
import type { Redis } from 'ioredis';
import { LockNotHeldError } from '../../errors.js';
import { ownerOf, type AcquireOptions } from '../../lock.js';
import { pollUntilAcquired } from '../../poll.js';
import { isOne, luaScript } from '../../../redis-client/lua.js';
import { redisCall } from '../../../redis-client/call.js';
import { fenceCounterKey, stringLockKey } from '../keys.js';
import { undoIfReplyLost } from '../lost-reply.js';

/** SET NX (PX when `ttlMs` > 0) and the grant's fencing token in one step: the token, or null when the lock is taken. */
const lockStringAcquire = luaScript('lock-string-acquire', ['lock', 'fence'], ['owner', 'ttlMs'], (raw) => (raw === null ? null : BigInt(raw as number)));
/** Deletes the lock only while it holds `owner`: true when deleted. */
const lockOwnedRelease = luaScript('lock-owned-release', ['lock'], ['owner'], isOne);

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
      () => redisCall(() => lockStringAcquire.run(redis, { lock: key, fence: fenceCounterKey(resource) }, { owner, ttlMs: expires ? opts.ttlMs : 0 })),
      () => releaseOwnedStringLock(redis, resource, key, owner),
    );
    if (granted === null) return false;
    token = granted;
    return true;
  });
  return { key, owner, token };
}

/** Deletes the lock only if it still holds `owner` (lua/lock-owned-release.lua); LockNotHeldError otherwise. */
export async function releaseOwnedStringLock(redis: Redis, resource: string, key: string, owner: string): Promise<void> {
  const deleted = await redisCall(() => lockOwnedRelease.run(redis, { lock: key }, { owner }));
  if (!deleted) throw new LockNotHeldError(resource);
}
