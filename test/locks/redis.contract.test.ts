// Every Redis lock under the lock contract, against three Redis servers of its own (one for the
// single-server locks, all three as RedLock's masters).
import type { Redis } from 'ioredis';
import { FairLock } from '../../src/locks/redis/redisson/fair.js';
import { expiryValueLockKey, fairLockKeys, hashLockKey, readWriteLockKeys, redlockKey, semaphoreKeys, stringLockKey } from '../../src/locks/redis/keys.js';
import { MultiLock } from '../../src/locks/redis/redisson/multi.js';
import { ReadWriteLock } from '../../src/locks/redis/redisson/read-write.js';
import { ExpirableSemaphore } from '../../src/locks/redis/redisson/semaphore.js';
import { OwnedLock } from '../../src/locks/redis/string/owned.js';
import { OwnedGetDelLock } from '../../src/locks/redis/string/owned-get-del.js';
import { PubsubLock } from '../../src/locks/redis/hash/pubsub.js';
import { Redlock } from '../../src/locks/redis/redlock/package.js';
import { RedlockLock } from '../../src/locks/redis/redlock/redlock.js';
import { ReentrantLock } from '../../src/locks/redis/hash/reentrant.js';
import { ReleaseNotifier } from '../../src/locks/redis/wait/release-notifier.js';
import { SetnxExpiryLock } from '../../src/locks/redis/string/setnx-expiry.js';
import { SetnxLock } from '../../src/locks/redis/string/setnx.js';
import { SetnxThenExpireLock } from '../../src/locks/redis/string/setnx-then-expire.js';
import { SetnxGetsetLock } from '../../src/locks/redis/string/setnx-getset.js';
import { LockClock } from '../../src/locks/lock-clock.js';
import { WatchdogLock } from '../../src/locks/redis/hash/watchdog.js';
import type { Lock } from '../../src/locks/lock.js';
import { ProcessLine } from '../../src/locks/process-line.js';
import { describe, expect, it } from 'vitest';
import { pollUntil } from '../../src/time.js';
import { lockContract, LOST_TTL_MS, type LockClaims, type LockSubject } from '../support/lock-contract.js';
import { withServers } from '../support/servers.js';
import { openRedis } from '../support/redis-client.js';

const servers = withServers({ redis: 3 });

/** A lock over the first server; `key` is where it keeps a resource's hold. */
function onOneServer(name: string, claims: LockClaims, key: (resource: string) => string, make: (redis: Redis, subscriber: Redis) => Lock): void {
  lockContract(name, claims, async (): Promise<LockSubject> => {
    const url = servers.current.redis[0] as string;
    const [redis, subscriber] = await Promise.all([openRedis(url), openRedis(url)]);
    return {
      lock: make(redis, subscriber),
      takeAway: async (resource) => void (await redis.del(key(resource))),
      loseHold: async (resource) => void (await redis.del(key(resource))),
      close: async () => {
        redis.disconnect();
        subscriber.disconnect();
      },
    };
  });
}

onOneServer('redis-setnx', { reentrant: false, lateRelease: 'deletes', lost: 'never' }, stringLockKey, (r) => new SetnxLock(r));
onOneServer('redis-setnx-expire', { reentrant: false, lateRelease: 'deletes', lost: 'never' }, stringLockKey, (r) => new SetnxThenExpireLock(r));
onOneServer(
  'redis-setnx-getset',
  { reentrant: false, lateRelease: 'deletes', lost: 'never' },
  expiryValueLockKey,
  (r) => new SetnxGetsetLock(r, new LockClock()),
);
onOneServer('redis-setnx-ex', { reentrant: false, lateRelease: 'deletes', lost: 'never' }, stringLockKey, (r) => new SetnxExpiryLock(r));
onOneServer('redis-owned', { reentrant: false, lateRelease: 'refuses', lost: 'never' }, stringLockKey, (r) => new OwnedLock(r));
// Its late release refuses too: the GET sees another's token. Only a lease that ends between the GET and the DEL shows its flaw (redis-course-flaws).
onOneServer('redis-owned-get-del', { reentrant: false, lateRelease: 'refuses', lost: 'never' }, stringLockKey, (r) => new OwnedGetDelLock(r));
onOneServer('redis-reentrant', { reentrant: true, lateRelease: 'refuses', lost: 'never' }, hashLockKey, (r) => new ReentrantLock(r));
onOneServer('redis-watchdog', { reentrant: true, lateRelease: 'refuses', lost: 'fires' }, hashLockKey, (r) => new WatchdogLock(r));
onOneServer('redis-pubsub', { reentrant: true, lateRelease: 'refuses', lost: 'never' }, hashLockKey, (r, s) => new PubsubLock(r, new ReleaseNotifier(s)));

// Redisson's primitives beyond the mutex (course §2.10) that exclude: the fair lock, the write half
// of the read-write lock, and a permit-expirable semaphore of one permit.
onOneServer(
  'redis-fair',
  { reentrant: true, lateRelease: 'refuses', lost: 'fires' },
  (r) => fairLockKeys(r).lock,
  (r, s) => new FairLock(r, new ReleaseNotifier(s)),
);
onOneServer(
  'read-write lock, write',
  { reentrant: true, lateRelease: 'refuses', lost: 'fires' },
  (r) => readWriteLockKeys(r).lock,
  (r, s) => new ReadWriteLock(r, new ReleaseNotifier(s)).write,
);
lockContract('permit-expirable semaphore, 1 permit', { reentrant: false, lateRelease: 'refuses', lost: 'fires' }, async () => {
  const url = servers.current.redis[0] as string;
  const [redis, subscriber] = await Promise.all([openRedis(url), openRedis(url)]);
  const semaphore = new ExpirableSemaphore(redis, new ReleaseNotifier(subscriber));
  return {
    // Its permit set first, afresh after a takeAway cleared it (as a reset would).
    lock: { acquire: async (resource, opts) => (await semaphore.trySetPermits(resource, 1), semaphore.acquire(resource, opts)) },
    takeAway: async (resource) => void (await redis.del(semaphoreKeys(resource).permits, semaphoreKeys(resource).leases)),
    loseHold: async (resource) => void (await redis.del(semaphoreKeys(resource).leases)),
    close: async () => {
      redis.disconnect();
      subscriber.disconnect();
    },
  };
});

lockContract('redis-multi (3 servers)', { reentrant: true, lateRelease: 'refuses', lost: 'fires' }, async () => {
  const servers3 = await Promise.all(servers.current.redis.map(openRedis));
  const [first, ...rest] = servers3.map((c) => new WatchdogLock(c));
  const del = async (resource: string) => void (await Promise.all(servers3.map((c) => c.del(hashLockKey(resource)))));
  return {
    lock: new MultiLock([first!, ...rest]),
    takeAway: del,
    loseHold: del,
    close: async () => servers3.forEach((c) => c.disconnect()),
  };
});

lockContract('redlock (3 masters)', { reentrant: false, lateRelease: 'refuses', lost: 'fires' }, async () => {
  const masters = await Promise.all(servers.current.redis.map(openRedis));
  const redlock = new Redlock(masters, { driftFactor: 0.01, retryCount: 0 });
  redlock.on('error', () => undefined);
  return {
    lock: new RedlockLock(redlock),
    takeAway: async (resource) => void (await Promise.all(masters.map((m) => m.del(redlockKey(resource))))),
    // Its validity runs out with the lease (LOST_TTL_MS): nothing to do but wait.
    loseHold: async () => undefined,
    close: async () => masters.forEach((m) => m.disconnect()),
  };
});

// The redlock+line strategy's lock (plain RedlockLock above is the redlock strategy's): a process line in front, which passes a hold within the process. A hold
// taken away on the masters still holds its own process's line, so no late-release case here.
lockContract('redlock behind a process line', { reentrant: false, lost: 'fires' }, async () => {
  const masters = await Promise.all(servers.current.redis.map(openRedis));
  const redlock = new Redlock(masters, { driftFactor: 0.01, retryCount: 0 });
  redlock.on('error', () => undefined);
  return {
    lock: new ProcessLine(new RedlockLock(redlock)),
    // A pass keeps the hold's validity: it runs out with the first grant's lease (LOST_TTL_MS).
    loseHold: async () => undefined,
    close: async () => masters.forEach((m) => m.disconnect()),
  };
});

describe('redlock behind a process line: a pass', () => {
  it("keeps the first grant's validity: the request it was passed to learns of the hold's end as the first would", async () => {
    const masters = await Promise.all(servers.current.redis.map(openRedis));
    const redlock = new Redlock(masters, { driftFactor: 0.01, retryCount: 0 });
    redlock.on('error', () => undefined);
    try {
      const line = new ProcessLine(new RedlockLock(redlock));
      const r = `pass-${Date.now()}`;
      const as = (owner: string) => ({ ttlMs: LOST_TTL_MS, waitMs: 5_000, retryMs: 10, owner });
      const grantedAt = Date.now();
      const a = await line.acquire(r, as('A'));
      const passed = line.acquire(r, as('B'));
      expect(await pollUntil(() => line.waiting(r) === 1, 2_000, 5)).toBe(true);
      await a.release();
      const b = await passed;
      expect(line.stats).toEqual({ innerGrants: 1, passes: 1 });
      expect(b.lost.aborted).toBe(false);
      expect(await pollUntil(() => b.lost.aborted, 2_000, 5)).toBe(true);
      // Within the first grant's lease, not a fresh one from the pass.
      expect(Date.now() - grantedAt).toBeLessThan(LOST_TTL_MS + 100);
      await b.release().catch(() => undefined);
    } finally {
      masters.forEach((m) => m.disconnect());
    }
  });
});
