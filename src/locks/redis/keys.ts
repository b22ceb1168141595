// Where each Redis lock keeps its state. String locks (SETNX family) and hash locks (reentrant
// family) use different keys, so switching strategies never meets a WRONGTYPE left by the other.
import type { Redis } from 'ioredis';
import { redisCall } from '../../redis/call.js';

/** Every lock key starts with this, so a reset can find and delete leftovers. */
export const LOCK_KEY_PREFIX = 'lock:';

export const stringLockKey = (resource: string): string => `${LOCK_KEY_PREFIX}string:${resource}`;
export const hashLockKey = (resource: string): string => `${LOCK_KEY_PREFIX}hash:${resource}`;
export const redlockKey = (resource: string): string => `${LOCK_KEY_PREFIX}redlock:${resource}`;
/**
 * The counter every single-server Redis lock draws fencing tokens from, one per resource. Outside
 * LOCK_KEY_PREFIX on purpose: a reset deletes the locks but never lowers a fence.
 */
export const fenceCounterKey = (resource: string): string => `fence:${resource}`;
/** Where the reentrant release script announces that `resource` is free. */
export const releaseChannel = (resource: string): string => `lock-released:${resource}`;

/** Deletes every lock key on `redis` (leftovers of crashed or expired holders), for a fresh run. */
export async function deleteLockKeys(redis: Redis, pattern = `${LOCK_KEY_PREFIX}*`): Promise<void> {
  await redisCall(async () => {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  });
}
