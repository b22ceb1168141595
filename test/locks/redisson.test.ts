// Redisson's primitives beyond the mutex (course §2.10) at lock level, against Redis servers of
// their own: the fair lock's line, the multi-lock's all-or-nothing, the read-write lock's rules,
// the semaphores (and a dead holder's permit coming back after its lease), and the latch. Orders
// are built by sequencing: each waiter is seen in Redis before the next one starts.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { LockNotHeldError, LockTimeoutError } from '../../src/locks/errors.js';
import type { AcquireOptions, Lease } from '../../src/locks/lock.js';
import { FairLock, type FairLease } from '../../src/locks/redis/redisson/fair.js';
import { fairLockKeys, hashLockKey, readWriteLockKeys } from '../../src/locks/redis/keys.js';
import { CountDownLatch } from '../../src/locks/redis/redisson/latch.js';
import { MultiLock } from '../../src/locks/redis/redisson/multi.js';
import { ReadWriteLock } from '../../src/locks/redis/redisson/read-write.js';
import { ReleaseNotifier, type ReleaseWait, type Wakes } from '../../src/locks/redis/wait/release-notifier.js';
import { ExpirableSemaphore, Semaphore } from '../../src/locks/redis/redisson/semaphore.js';
import { WatchdogLock } from '../../src/locks/redis/hash/watchdog.js';
import { connectRedis, waitReady } from '../../src/redis-client/connect.js';
import { pollUntil, sleep } from '../../src/time.js';
import { contend } from '../support/lock-contract.js';
import { withServers } from '../support/servers.js';

const servers = withServers({ redis: 3 });

const OPTS = { ttlMs: 30_000, waitMs: 10_000, retryMs: 10 } as const;
const as = (owner: string, o: Partial<AcquireOptions> = {}): AcquireOptions => ({ ...OPTS, ...o, owner });
/** Short wait for the cases that expect a refusal. */
const SHORT_WAIT_MS = 200;

const opened: Redis[] = [];
async function open(i = 0): Promise<Redis> {
  const url = servers.current.redis[i] as string;
  const client = connectRedis(url, { commandTimeoutMs: 2_000 });
  if (!(await waitReady(client, 5_000))) throw new Error(`no Redis at ${url}`);
  opened.push(client);
  return client;
}
afterEach(() => {
  for (const c of opened.splice(0)) c.disconnect();
});

/** A notifier that counts the waiters asleep between attempts: a waiter's attempt was refused once it sleeps. */
class WatchedNotifier extends ReleaseNotifier {
  asleep = 0;

  override nextRelease(channel: string, wakes?: Wakes): ReleaseWait {
    const wait = super.nextRelease(channel, wakes);
    return {
      cancel: wait.cancel,
      within: async (ms) => {
        this.asleep++;
        try {
          await wait.within(ms);
        } finally {
          this.asleep--;
        }
      },
    };
  }
}

/** A client and a notifier on its own subscriber connection, as a service instance has. */
async function instance(): Promise<{ redis: Redis; notifier: WatchedNotifier }> {
  const [redis, subscriber] = await Promise.all([open(), open()]);
  return { redis, notifier: new WatchedNotifier(subscriber) };
}

/** Resolves once `check` holds, or fails naming `what`. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  if (!(await pollUntil(check, 5_000, 5))) throw new Error(`never: ${what}`);
}

describe('fair lock', () => {
  it('grants in the order waiters joined the line, across instances, each waking by name', async () => {
    const instances = await Promise.all([instance(), instance(), instance()]);
    const locks = instances.map((i) => new FairLock(i.redis, i.notifier));
    const r = `fair-${randomUUID()}`;
    const { queue } = fairLockKeys(r);
    const redis = instances[0]!.redis;
    const holder = await locks[0]!.acquire(r, as('holder'));
    const granted: string[] = [];
    const waiters: Promise<FairLease>[] = [];
    // Five waiters on alternating instances, each seen in line before the next one asks.
    for (let i = 0; i < 5; i++) {
      const lock = locks[(i + 1) % 3]!;
      const owner = `w${i}`;
      waiters.push(
        lock.acquire(r, as(owner)).then(async (lease) => {
          granted.push(owner);
          await lease.release();
          return lease;
        }),
      );
      await until(`${owner} in line`, async () => (await redis.zcard(queue)) === i + 1);
    }
    await holder.release();
    const leases = await Promise.all(waiters);
    expect(granted).toEqual(['w0', 'w1', 'w2', 'w3', 'w4']);
    const tickets = leases.map((l) => l.ticket);
    expect(tickets).toEqual([...tickets].sort((a, b) => a - b));
    const tokens = await Promise.all(leases.map((l) => l.fencingToken()));
    expect(tokens).toEqual([...tokens].sort((a, b) => (a < b ? -1 : 1)));
    expect(await redis.exists(queue, fairLockKeys(r).alive)).toBe(0);
  });

  it('a waiter that gives up leaves the line, and the one behind it moves up', async () => {
    const { redis, notifier } = await instance();
    const lock = new FairLock(redis, notifier);
    const r = `fair-${randomUUID()}`;
    const { queue } = fairLockKeys(r);
    const holder = await lock.acquire(r, as('holder'));
    const quitter = lock.acquire(r, as('quitter', { waitMs: 300 }));
    await until('quitter in line', async () => (await redis.zcard(queue)) === 1);
    const patient = lock.acquire(r, as('patient'));
    await until('patient in line', async () => (await redis.zcard(queue)) === 2);
    await expect(quitter).rejects.toBeInstanceOf(LockTimeoutError);
    expect(await redis.zrange(queue, 0, -1)).toEqual(['patient']);
    await holder.release();
    await (await patient).release();
    expect(await redis.exists(queue)).toBe(0);
  });

  it('a newcomer does not jump the line while the lock is between holders', async () => {
    const { redis, notifier } = await instance();
    const lock = new FairLock(redis, notifier);
    const r = `fair-${randomUUID()}`;
    const holder = await lock.acquire(r, as('holder'));
    const first = lock.acquire(r, as('first'));
    await until('first in line', async () => (await redis.zcard(fairLockKeys(r).queue)) === 1);
    // Freed behind the waiter's back (as a lease running out would): free, but someone is in line.
    await redis.del(fairLockKeys(r).lock);
    await expect(lock.acquire(r, as('newcomer', { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    await holder.release().catch(() => undefined);
    await (await first).release();
  });
});

describe('multi-lock', () => {
  it('takes every part or none: one part held elsewhere, and the parts it took are given back', async () => {
    const clients = await Promise.all([open(0), open(1), open(2)]);
    const parts = clients.map((c) => new WatchdogLock(c));
    const multi = new MultiLock([parts[0]!, parts[1]!, parts[2]!]);
    const r = `multi-${randomUUID()}`;
    const other = await parts[2]!.acquire(r, as('other'));
    await expect(multi.acquire(r, as('A', { waitMs: SHORT_WAIT_MS }))).rejects.toBeInstanceOf(LockTimeoutError);
    expect(await Promise.all(clients.map((c) => c.exists(hashLockKey(r))))).toEqual([0, 0, 1]);
    await other.release();
    const all = await multi.acquire(r, as('A'));
    expect(await Promise.all(clients.map((c) => c.hget(hashLockKey(r), 'A')))).toEqual(['1', '1', '1']);
    await all.release();
    expect(await Promise.all(clients.map((c) => c.exists(hashLockKey(r))))).toEqual([0, 0, 0]);
  });
});

describe('read-write lock', () => {
  async function rwLock(): Promise<{ rw: ReadWriteLock; redis: Redis }> {
    const { redis, notifier } = await instance();
    return { rw: new ReadWriteLock(redis, notifier), redis };
  }

  it('readers share it, a writer waits for them, and a reader never upgrades', async () => {
    const { rw } = await rwLock();
    const r = `rw-${randomUUID()}`;
    const a = await rw.read.acquire(r, as('A', { waitMs: 0 }));
    const b = await rw.read.acquire(r, as('B', { waitMs: 0 }));
    await expect(rw.write.acquire(r, as('W', { waitMs: SHORT_WAIT_MS }))).rejects.toBeInstanceOf(LockTimeoutError);
    // A reader asking for the write lock waits for the readers, itself included.
    await expect(rw.write.acquire(r, as('A', { waitMs: SHORT_WAIT_MS }))).rejects.toBeInstanceOf(LockTimeoutError);
    const writer = rw.write.acquire(r, as('W'));
    await a.release();
    await b.release();
    const w = await writer; // woken by the last reader's release
    await expect(rw.read.acquire(r, as('C', { waitMs: SHORT_WAIT_MS }))).rejects.toBeInstanceOf(LockTimeoutError);
    await w.release();
  });

  it('a writer re-enters and may read (a downgrade): once it gives the write lock back, other readers join it', async () => {
    const { rw, redis } = await rwLock();
    const r = `rw-${randomUUID()}`;
    const w = await rw.write.acquire(r, as('W'));
    const again = await rw.write.acquire(r, as('W', { waitMs: 0 }));
    const read = await rw.read.acquire(r, as('W', { waitMs: 0 }));
    await again.release();
    const reader = rw.read.acquire(r, as('R'));
    await w.release();
    const r2 = await reader;
    expect(await redis.hget(readWriteLockKeys(r).lock, 'mode')).toBe('read');
    await expect(rw.write.acquire(r, as('X', { waitMs: SHORT_WAIT_MS }))).rejects.toBeInstanceOf(LockTimeoutError);
    await read.release();
    await r2.release();
    expect(await redis.exists(readWriteLockKeys(r).lock)).toBe(0);
    await expect(r2.release()).rejects.toBeInstanceOf(LockNotHeldError);
  });

  it('the watchdog keeps a short lease; a dead reader’s hold ends after it, the live reader’s does not', async () => {
    const live = await rwLock();
    const dead = await rwLock();
    const r = `rw-${randomUUID()}`;
    const ttlMs = 300;
    const kept = await live.rw.read.acquire(r, as('live', { ttlMs }));
    await dead.rw.read.acquire(r, as('dead', { ttlMs }));
    // The dead reader's instance loses its connection: its watchdog can no longer renew.
    dead.redis.disconnect();
    const t0 = Date.now();
    const writer = live.rw.write.acquire(r, as('W', { waitMs: 5_000 }));
    await sleep(ttlMs * 3);
    const holds = await live.redis.hkeys(readWriteLockKeys(r).lock);
    expect(holds.sort()).toEqual(['mode', 'r:live']);
    expect(kept.lost.aborted).toBe(false);
    await kept.release();
    await writer.then((w) => w.release());
    console.log(`[rw] writer waited ${Date.now() - t0} ms (the live reader held ${ttlMs * 3} ms)`);
  });
});

describe('semaphore', () => {
  it('trySetPermits: the first call wins; never more holders than permits', async () => {
    const { redis, notifier } = await instance();
    const semaphore = new Semaphore(redis, notifier);
    const name = `sem-${randomUUID()}`;
    expect(await semaphore.trySetPermits(name, 3)).toBe(true);
    expect(await semaphore.trySetPermits(name, 5)).toBe(false);
    const { mostInside, through } = await contend(semaphore, name, 30);
    expect({ mostInside, through }).toEqual({ mostInside: 3, through: 30 });
    expect(await semaphore.count(name)).toEqual({ left: 3, set: 3 });
  });

  it('a waiter wakes on a release (pub/sub), not after a poll', async () => {
    const { redis, notifier } = await instance();
    const semaphore = new Semaphore(redis, notifier);
    const name = `sem-${randomUUID()}`;
    await semaphore.trySetPermits(name, 1);
    const held = await semaphore.acquire(name, as('A'));
    const waiting = semaphore.acquire(name, as('B'));
    await until('B refused and asleep', async () => notifier.asleep === 1);
    const t0 = Date.now();
    await held.release();
    await (await waiting).release();
    const ms = Date.now() - t0;
    console.log(`[semaphore] woken ${ms} ms after the release (the fallback re-ask is every 1000 ms)`);
    expect(ms).toBeLessThan(900);
  });

  it('the watchdog keeps a live holder’s permit past its short lease on the expirable semaphore: nobody else gets it meanwhile', async () => {
    const { redis, notifier } = await instance();
    const semaphore = new ExpirableSemaphore(redis, notifier);
    const n = `sem-${randomUUID()}`;
    await semaphore.trySetPermits(n, 1);
    const ttlMs = 300;
    const kept = await semaphore.acquire(n, as('live', { ttlMs }));
    await sleep(ttlMs * 3);
    // Three leases later the permit is still its: renewed, not lost, and no other holder got in.
    expect(kept.lost.aborted).toBe(false);
    await expect(semaphore.acquire(n, as('other', { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
    await kept.release();
    expect(await semaphore.count(n)).toEqual({ left: 1, set: 1 });
  });

  it('a dead holder’s permit never comes back on the plain semaphore, and comes back after its lease on the expirable one', async () => {
    const ttlMs = 400;
    const name = `sem-${randomUUID()}`;
    for (const kind of ['plain', 'expirable'] as const) {
      const survivor = await instance();
      const doomed = await instance();
      const make = (i: { redis: Redis; notifier: WatchedNotifier }) =>
        kind === 'plain' ? new Semaphore(i.redis, i.notifier) : new ExpirableSemaphore(i.redis, i.notifier);
      const s = make(survivor);
      const n = `${name}-${kind}`;
      await s.trySetPermits(n, 1);
      const t0 = Date.now();
      await make(doomed).acquire(n, as('doomed', { ttlMs }));
      // The holder's process dies: no release, no renewal.
      doomed.redis.disconnect();
      await expect(s.acquire(n, as('next', { waitMs: 0 }))).rejects.toBeInstanceOf(LockTimeoutError);
      if (kind === 'plain') {
        await expect(s.acquire(n, as('next', { ttlMs, waitMs: ttlMs * 2 }))).rejects.toBeInstanceOf(LockTimeoutError);
        continue;
      }
      const lease: Lease = await s.acquire(n, as('next', { ttlMs, waitMs: 5_000 }));
      const ms = Date.now() - t0;
      console.log(`[semaphore] the dead holder's permit came back ${ms} ms after it was taken (lease ${ttlMs} ms)`);
      expect(ms).toBeGreaterThanOrEqual(ttlMs - 5);
      await lease.release();
      expect(await s.count(n)).toEqual({ left: 1, set: 1 });
    }
  });
});

describe('countdown latch', () => {
  it('opens after count countDowns, waking every waiter; a latch never armed is open', async () => {
    const { redis, notifier } = await instance();
    const latch = new CountDownLatch(redis, notifier);
    const name = `latch-${randomUUID()}`;
    await latch.await(name, { waitMs: 0 });
    expect(await latch.trySetCount(name, 3)).toBe(true);
    expect(await latch.trySetCount(name, 5)).toBe(false);
    let opened = 0;
    const waiters = [0, 1].map(() => latch.await(name, { waitMs: 5_000 }).then(() => opened++));
    await until('both waiters asleep', async () => notifier.asleep === 2);
    expect(await latch.countDown(name)).toBe(2);
    expect(await latch.countDown(name)).toBe(1);
    await expect(latch.await(name, { waitMs: SHORT_WAIT_MS })).rejects.toBeInstanceOf(LockTimeoutError);
    expect(opened).toBe(0);
    const t0 = Date.now();
    expect(await latch.countDown(name)).toBe(0);
    await Promise.all(waiters);
    const ms = Date.now() - t0;
    console.log(`[latch] both waiters woken ${ms} ms after the last countDown (the fallback look is every 1000 ms)`);
    expect(opened).toBe(2);
    expect(ms).toBeLessThan(900);
    // Open, a latch can be armed again.
    expect(await latch.trySetCount(name, 1)).toBe(true);
  });
});
