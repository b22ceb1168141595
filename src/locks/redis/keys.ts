// Where each Redis lock keeps its state. String locks (SETNX family) and hash locks (reentrant
// family) use different keys, so switching strategies never meets a WRONGTYPE left by the other.
import type { Redis } from 'ioredis';
import { redisCall } from '../../redis-client/call.js';

/** Every lock key starts with this, so a reset can find and delete leftovers. */
export const LOCK_KEY_PREFIX = 'lock:';

export const stringLockKey = (resource: string): string => `${LOCK_KEY_PREFIX}string:${resource}`;
export const hashLockKey = (resource: string): string => `${LOCK_KEY_PREFIX}hash:${resource}`;
/**
 * The SETNX+GETSET lock's key: its value is its own expiry time and the key has no Redis expiry, so
 * only that lock can take a stale one over. On the SETNX family's key, a holder that died would
 * block the family's other locks for good (seen in a chaos run: redis-setnx-ex timing out behind it).
 */
export const expiryValueLockKey = (resource: string): string => `${LOCK_KEY_PREFIX}string-expiry:${resource}`;
export const redlockKey = (resource: string): string => `${LOCK_KEY_PREFIX}redlock:${resource}`;
/**
 * The counter every single-server Redis lock draws fencing tokens from, one per resource. Outside
 * LOCK_KEY_PREFIX on purpose: a reset deletes the locks but never lowers a fence.
 */
export const fenceCounterKey = (resource: string): string => `fence:${resource}`;
/** Where the reentrant release script announces that `resource` is free. */
export const releaseChannel = (resource: string): string => `lock-released:${resource}`;

// Redisson's primitives beyond the mutex (course §2.10). Lock state sits under LOCK_KEY_PREFIX, so
// a reset deletes it with the other locks' leftovers.
/** The fair lock: its hash (owner → holds, as the reentrant lock's), its line (owner by ticket), when each waiter counts as gone, and the ticket counter. */
export const fairLockKeys = (resource: string) => ({
  lock: `${LOCK_KEY_PREFIX}fair:${resource}`,
  queue: `${LOCK_KEY_PREFIX}fair-queue:${resource}`,
  alive: `${LOCK_KEY_PREFIX}fair-alive:${resource}`,
  tickets: `${LOCK_KEY_PREFIX}fair-tickets:${resource}`,
  /** Each message names the waiter now first in line. */
  channel: `lock-released:fair:${resource}`,
});
/** The read-write lock: its hash (mode, holds per owner and mode) and each hold's lease end. */
export const readWriteLockKeys = (resource: string) => ({
  lock: `${LOCK_KEY_PREFIX}rw:${resource}`,
  leases: `${LOCK_KEY_PREFIX}rw-leases:${resource}`,
  channel: `lock-released:rw:${resource}`,
});
/** A semaphore: the permits left, how many were set, and (permit-expirable) each permit's lease end. */
export const semaphoreKeys = (name: string) => ({
  permits: `${LOCK_KEY_PREFIX}semaphore:${name}`,
  total: `${LOCK_KEY_PREFIX}semaphore-total:${name}`,
  leases: `${LOCK_KEY_PREFIX}semaphore-leases:${name}`,
  channel: `semaphore-released:${name}`,
});
/** A countdown latch: the count left; the channel says when it reached 0. */
export const latchKeys = (name: string) => ({
  count: `${LOCK_KEY_PREFIX}latch:${name}`,
  channel: `latch-opened:${name}`,
});

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
