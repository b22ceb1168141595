// The Redis locks on their own, against the shared cluster's real Redis servers: reentrancy
// counts, releases that find the lock gone, whose lock a late release deletes, the watchdog, the
// pub/sub wake-up, RedLock, and a server that is down.
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DependencyDownError } from '../../src/dependency.js';
import { LockNotHeldError, LockTimeoutError } from '../../src/locks/errors.js';
import type { Lease, Lock, LockOptions } from '../../src/locks/lock.js';
import { withLockReentered } from '../../src/locks/reenter-once.js';
import { deleteLockKeys, hashLockKey, stringLockKey } from '../../src/locks/redis/keys.js';
import { OwnedLock } from '../../src/locks/redis/string/owned.js';
import { PubsubLock } from '../../src/locks/redis/hash/pubsub.js';
import { Redlock } from '../../src/locks/redis/redlock/package.js';
import { RedlockLock } from '../../src/locks/redis/redlock/redlock.js';
import { ReentrantLock } from '../../src/locks/redis/hash/reentrant.js';
import { ReleaseNotifier } from '../../src/locks/redis/wait/release-notifier.js';
import { SetnxExpiryLock } from '../../src/locks/redis/string/setnx-expiry.js';
import { SetnxLock } from '../../src/locks/redis/string/setnx.js';
import { WatchdogLock } from '../../src/locks/redis/hash/watchdog.js';
import { sleep } from '../../src/time.js';
import { connectRedis } from '../../src/redis-client/connect.js';
import { sharedCluster } from '../support/cluster.js';
import { openRedis } from '../support/redis-client.js';

const R = 'test-resource';
const opts = (o: Partial<LockOptions> = {}): LockOptions => ({ ttlMs: 10_000, waitMs: 2_000, retryMs: 5, ...o });
const take = (lock: Lock, owner: string, o?: Partial<LockOptions>): Promise<Lease> => lock.acquire(R, { ...opts(o), owner });

let redis: Redis;
beforeAll(async () => {
  redis = await openRedis(sharedCluster().redis);
});
afterAll(() => redis.disconnect());
beforeEach(() => deleteLockKeys(redis));

describe('SETNX without expiry', () => {
  it('excludes a second owner until the first deletes the key', async () => {
    const lock = new SetnxLock(redis);
    const a = await take(lock, 'A');
    await expect(take(lock, 'B', { waitMs: 100 })).rejects.toBeInstanceOf(LockTimeoutError);
    expect(await redis.pttl(stringLockKey(R))).toBe(-1); // no expiry: a dead holder keeps it forever
    await a.release();
    await (await take(lock, 'B')).release();
  });
});

describe('a late release after the lease ran out and another owner took the lock', () => {
  async function lateRelease(lock: Lock): Promise<{ released: Promise<void>; keyAfter: string | null }> {
    const a = await take(lock, 'A', { ttlMs: 50 });
    await sleep(80);
    await take(lock, 'B');
    const released = a.release();
    await released.catch(() => undefined);
    return { released, keyAfter: await redis.get(stringLockKey(R)) };
  }

  it('SET NX PX with a blind DEL deletes the new holder’s lock', async () => {
    const { released, keyAfter } = await lateRelease(new SetnxExpiryLock(redis));
    await expect(released).resolves.toBeUndefined();
    expect(keyAfter).toBeNull();
  });

  it('the owned lock refuses (LockNotHeldError) and leaves the new holder’s token in place', async () => {
    const { released, keyAfter } = await lateRelease(new OwnedLock(redis));
    await expect(released).rejects.toBeInstanceOf(LockNotHeldError);
    expect(keyAfter).toBe('B');
  });
});

describe('the reentrant hash lock', () => {
  it('counts holds per owner and frees the key with the last release', async () => {
    const lock = new ReentrantLock(redis);
    const outer = await take(lock, 'A');
    const inner = await take(lock, 'A');
    // Beside the holds, the grant's fencing token, which nested holds share.
    expect(await redis.hgetall(hashLockKey(R))).toEqual({ A: '2', ':fence': expect.stringMatching(/^\d+$/) });
    expect(await inner.fencingToken!()).toBe(await outer.fencingToken!());
    await expect(take(lock, 'B', { waitMs: 50 })).rejects.toBeInstanceOf(LockTimeoutError);
    await inner.release();
    expect(await redis.hgetall(hashLockKey(R))).toEqual({ A: '1', ':fence': expect.stringMatching(/^\d+$/) });
    await outer.release();
    expect(await redis.exists(hashLockKey(R))).toBe(0);
    await expect(outer.release()).rejects.toBeInstanceOf(LockNotHeldError);
  });

  it('releasing a lock another owner holds is an error and leaves it untouched', async () => {
    const lock = new ReentrantLock(redis);
    const a = await take(lock, 'A', { ttlMs: 50 });
    await sleep(80);
    await take(lock, 'B');
    await expect(a.release()).rejects.toBeInstanceOf(LockNotHeldError);
    expect(await redis.hgetall(hashLockKey(R))).toEqual({ B: '1', ':fence': expect.stringMatching(/^\d+$/) });
  });

  it('a reentered scope passes with a reentrant lock and waits for itself with a non-reentrant one', async () => {
    const reentered = await withLockReentered(new ReentrantLock(redis), R, { ...opts(), owner: 'A' }, async () => redis.hget(hashLockKey(R), 'A'));
    expect(reentered).toEqual({ value: '2' });
    expect(await redis.exists(hashLockKey(R))).toBe(0);
    await expect(withLockReentered(new OwnedLock(redis), R, { ...opts({ waitMs: 100 }), owner: 'A' }, async () => 'never')).rejects.toBeInstanceOf(
      LockTimeoutError,
    );
    expect(await redis.exists(stringLockKey(R))).toBe(0); // the outer hold was given back
  });
});

describe('the watchdog', () => {
  it('keeps renewing a short lease while held and stops on release', async () => {
    const lease = await take(new WatchdogLock(redis), 'A', { ttlMs: 150 });
    await sleep(500);
    expect(await redis.hget(hashLockKey(R), 'A')).toBe('1');
    expect(lease.lost.aborted).toBe(false);
    await lease.release();
    await sleep(100);
    expect(await redis.exists(hashLockKey(R))).toBe(0);
  });

  it('aborts lost when a renewal finds the lock gone', async () => {
    const lease = await take(new WatchdogLock(redis), 'A', { ttlMs: 150 });
    await redis.del(hashLockKey(R));
    await sleep(120);
    expect(lease.lost.aborted).toBe(true);
    await expect(lease.release()).rejects.toBeInstanceOf(LockNotHeldError);
  });

  it('aborts lost when the lease runs out while a renewal is stuck, without waiting for the renewal to fail', async () => {
    const admin = await openRedis(sharedCluster().redis);
    try {
      const lease = await take(new WatchdogLock(redis), 'A', { ttlMs: 300 });
      // Writes (and scripts) stall for 1.5 s: the renewal neither succeeds nor fails in time.
      await admin.call('CLIENT', 'PAUSE', '1500', 'WRITE');
      const t0 = Date.now();
      await new Promise<void>((resolve) => lease.lost.addEventListener('abort', () => resolve(), { once: true }));
      expect(Date.now() - t0).toBeLessThan(600);
      expect(String(lease.lost.reason)).toMatch(/ran out/);
      await admin.call('CLIENT', 'UNPAUSE');
      await lease.release().catch(() => undefined);
    } finally {
      await admin.call('CLIENT', 'UNPAUSE').catch(() => undefined);
      admin.disconnect();
    }
  });
});

describe('pub/sub waiting', () => {
  it('a waiter wakes on the release message, long before the holder’s lease would end', async () => {
    const subscriber = await openRedis(sharedCluster().redis);
    try {
      const lock = new PubsubLock(redis, new ReleaseNotifier(subscriber));
      const a = await take(lock, 'A', { ttlMs: 10_000 });
      const t0 = Date.now();
      const waiting = take(lock, 'B', { waitMs: 5_000 });
      await sleep(100);
      await a.release();
      await (await waiting).release();
      expect(Date.now() - t0).toBeLessThan(1_000);
    } finally {
      subscriber.disconnect();
    }
  });

  it('a waiter takes over after a holder’s lease ends without a release', async () => {
    const subscriber = await openRedis(sharedCluster().redis);
    try {
      const lock = new PubsubLock(redis, new ReleaseNotifier(subscriber));
      await take(lock, 'A', { ttlMs: 200 });
      await (await take(lock, 'B', { waitMs: 2_000 })).release();
      await expect(take(lock, 'C', { waitMs: 0 })).resolves.toBeDefined();
    } finally {
      subscriber.disconnect();
    }
  });
});

describe('RedLock over the independent servers', () => {
  it('excludes a second owner and releases on every server', async () => {
    const clients = await Promise.all(sharedCluster().redlock.map(openRedis));
    try {
      const lock = new RedlockLock(new Redlock(clients, { retryJitter: 0 }));
      const a = await take(lock, 'A');
      await expect(take(lock, 'B', { waitMs: 100, retryMs: 20 })).rejects.toBeInstanceOf(LockTimeoutError);
      await a.release();
      await expect(a.release()).rejects.toBeInstanceOf(LockNotHeldError);
      await (await take(lock, 'B')).release();
    } finally {
      for (const c of clients) c.disconnect();
    }
  });
});

describe('Redis down', () => {
  it('every variant fails fast with DependencyDownError', async () => {
    const down = connectRedis('redis://127.0.0.1:1', { commandTimeoutMs: 500 });
    try {
      const locks: Lock[] = [
        new SetnxLock(down),
        new OwnedLock(down),
        new ReentrantLock(down),
        new WatchdogLock(down),
        new PubsubLock(down, new ReleaseNotifier(down)),
      ];
      for (const lock of locks) {
        const t0 = Date.now();
        await expect(take(lock, 'A')).rejects.toBeInstanceOf(DependencyDownError);
        expect(Date.now() - t0).toBeLessThan(500);
      }
    } finally {
      down.disconnect();
    }
  });
});
