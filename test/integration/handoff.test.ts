// The hand-off inside one process (src/locks/handoff.ts), on the shared cluster's real Redis
// servers: a holder passes the lock straight to a waiter of its own process that sleeps between
// attempts. Each case is sequenced: the waiter is known to sleep (Handoffs.sleeping) before the
// holder lets go.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { LockLostError, LockNotHeldError, LockTimeoutError } from '../../src/locks/errors.js';
import { MAX_HANDOFF_STREAK } from '../../src/locks/handoff.js';
import type { Lease, Lock, LockOptions } from '../../src/locks/lock.js';
import { deleteLockKeys, hashLockKey, redlockKey, releaseChannel } from '../../src/locks/redis/keys.js';
import { PubsubLock } from '../../src/locks/redis/hash/pubsub.js';
import { redlockReleaseChannel, RedlockReleaseHints } from '../../src/locks/redis/redlock/release-hints.js';
import { Redlock } from '../../src/locks/redis/redlock/package.js';
import { RedlockLock } from '../../src/locks/redis/redlock/redlock.js';
import { ReleaseNotifier } from '../../src/locks/redis/wait/release-notifier.js';
import { DependencyDownError } from '../../src/dependency.js';
import { REPO_ROOT } from '../../src/paths.js';
import { connectRedis } from '../../src/redis-client/connect.js';
import { pollUntil, sleep } from '../../src/time.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { sharedCluster } from '../support/cluster.js';
import { openRedis } from '../support/redis-client.js';

const R = 'handoff-resource';
const opts = (o: Partial<LockOptions> = {}): LockOptions => ({ ttlMs: 10_000, waitMs: 5_000, retryMs: 20, ...o });
const take = (lock: Lock, owner: string, o?: Partial<LockOptions>): Promise<Lease> => lock.acquire(R, { ...opts(o), owner });

/** Messages published on `channel`, in order, from a listener of its own. */
async function listen(url: string, channel: string): Promise<{ messages: string[]; close: () => void }> {
  const listener = await openRedis(url);
  const messages: string[] = [];
  listener.on('message', (_channel: string, message: string) => messages.push(message));
  await listener.subscribe(channel);
  return { messages, close: () => listener.disconnect() };
}

/** The promise's outcome, or 'still waiting' when it has not settled within `ms`. */
function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | 'still waiting'> {
  return Promise.race([promise, sleep(ms).then(() => 'still waiting' as const)]);
}

/** Waits until `n` waiters of `lock` sleep on R, offered for a hand-off. */
async function asleep(lock: { handoffs: { sleeping(resource: string): number } }, n: number): Promise<void> {
  expect(await pollUntil(() => lock.handoffs.sleeping(R) === n, 3_000, 2)).toBe(true);
}

describe('redis-pubsub', () => {
  let redis: Redis;
  let subscriber: Redis;
  let lock: PubsubLock;
  let published: { messages: string[]; close: () => void };
  beforeAll(async () => {
    redis = await openRedis(sharedCluster().redis);
    subscriber = await openRedis(sharedCluster().redis);
  });
  afterAll(() => {
    redis.disconnect();
    subscriber.disconnect();
  });
  beforeEach(async () => {
    await deleteLockKeys(redis);
    lock = new PubsubLock(redis, new ReleaseNotifier(subscriber));
    published = await listen(sharedCluster().redis, releaseChannel(R));
    return () => published.close();
  });

  it('passes the lock to the sleeping waiter in one step: its owner, its lease, a larger token, nothing published', async () => {
    const a = await take(lock, 'A', { ttlMs: 10_000 });
    const waiting = take(lock, 'B', { ttlMs: 30_000 });
    await asleep(lock, 1);
    await a.release();
    const b = await waiting;
    expect(await redis.hkeys(hashLockKey(R))).toEqual(['B', ':fence']);
    expect(await redis.pttl(hashLockKey(R))).toBeGreaterThan(10_000);
    expect(await b.fencingToken?.()).toBeGreaterThan((await a.fencingToken?.()) ?? Infinity);
    await b.release();
    // Messages arrive in order: once B's release (nobody left to pass to) is heard, A's would have been.
    expect(await pollUntil(() => published.messages.length > 0, 2_000, 2)).toBe(true);
    expect(published.messages).toEqual([hashLockKey(R)]);
  });

  it(`passes it on ${MAX_HANDOFF_STREAK} times in a row at most, then releases and publishes; the waiters are served in order`, async () => {
    const a = await take(lock, 'A');
    const served: string[] = [];
    const waiters: Promise<void>[] = [];
    const count = MAX_HANDOFF_STREAK + 1;
    for (let i = 1; i <= count; i++) {
      const owner = `W${i}`;
      waiters.push(
        take(lock, owner).then(async (lease) => {
          served.push(owner);
          await lease.release();
        }),
      );
      await asleep(lock, i);
    }
    await a.release();
    await Promise.all(waiters);
    expect(served).toEqual(Array.from({ length: count }, (_, i) => `W${i + 1}`));
    // The streak's last holder released for everyone, and so did the waiter after it, who found nobody asleep.
    expect(await pollUntil(() => published.messages.length >= 2, 2_000, 2)).toBe(true);
    expect(published.messages).toHaveLength(2);
  });

  it('a late release after the lease ran out passes nothing on: the new holder keeps it, the sleeper sleeps on', async () => {
    const a = await take(lock, 'A', { ttlMs: 200 });
    const b = await take(lock, 'B'); // woken at A's lease end, by its own attempt
    const waiting = take(lock, 'C');
    await asleep(lock, 1);
    await expect(a.release()).rejects.toBeInstanceOf(LockNotHeldError);
    expect(await redis.hkeys(hashLockKey(R))).toEqual(['B', ':fence']);
    await asleep(lock, 1);
    await b.release();
    await (await waiting).release();
  });

  it('a waiter whose client left stops waiting at once and is never handed the lock', async () => {
    const a = await take(lock, 'A');
    const client = new AbortController();
    const waiting = lock.acquire(R, { ...opts(), owner: 'B', signal: client.signal }).then(
      () => 'granted',
      (err: unknown) => err,
    );
    await asleep(lock, 1);
    const gone = new Error('the client left');
    client.abort(gone);
    expect(await settledWithin(waiting, 2_000)).toBe(gone);
    expect(lock.handoffs.sleeping(R)).toBe(0);
    await a.release();
    // Released for everyone (published), not passed to the waiter that left.
    expect(await redis.exists(hashLockKey(R))).toBe(0);
    expect(await pollUntil(() => published.messages.length === 1, 2_000, 5)).toBe(true);
  });

  it("a hand-off whose reply is lost ends the waiter's wait: it never attempts again under its owner while the clean-up gives its hold back", async () => {
    const url = sharedCluster().redis;
    const proxy = await TcpProxy.start(Number(new URL(url).port));
    const viaProxy = connectRedis(`redis://127.0.0.1:${proxy.port}`, { commandTimeoutMs: 500 });
    await viaProxy.connect();
    const monitor = await (await openRedis(url)).monitor();
    const acquireSha = createHash('sha1')
      .update(fs.readFileSync(path.join(REPO_ROOT, 'lua', 'lock-reentrant-acquire.lua')))
      .digest('hex');
    const attemptsOfB: string[][] = [];
    const markers: string[] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() === 'evalsha' && args[1] === acquireSha && args.includes('B')) attemptsOfB.push(args);
      if (args[0]?.toLowerCase() === 'echo' && args[1]) markers.push(args[1]);
    });
    /** B's attempts so far: MONITOR reports commands in the order Redis ran them, so once a marker sent now is seen, all of B's are. */
    const attemptsSoFar = async (marker: string) => {
      await redis.echo(marker);
      expect(await pollUntil(() => markers.includes(marker), 2_000, 5)).toBe(true);
      return attemptsOfB.length;
    };
    try {
      const lossy = new PubsubLock(viaProxy, new ReleaseNotifier(subscriber));
      const a = await take(lossy, 'A');
      const waiting = take(lossy, 'B', { waitMs: 10_000 }).then(
        () => 'granted',
        (err: unknown) => err,
      );
      await asleep(lossy, 1);
      // B came while A, of its own process, held the lock: it sleeps without a first attempt.
      const before = await attemptsSoFar('asleep');
      expect(before).toBe(0);
      proxy.dropReplies();
      // The hand-off is applied (B owns the hash), its answer never comes back.
      await expect(a.release()).rejects.toBeInstanceOf(DependencyDownError);
      expect(await settledWithin(waiting, 2_000)).toBeInstanceOf(DependencyDownError);
      proxy.cut();
      // Once Redis answers again, the clean-up gives back whatever the hand-off moved.
      expect(await pollUntil(async () => (await redis.exists(hashLockKey(R))) === 0, 5_000, 20)).toBe(true);
      expect(await attemptsSoFar('cleaned up')).toBe(before);
      // The monitor does see B's attempts: one made now is counted.
      await (await take(new PubsubLock(redis, new ReleaseNotifier(subscriber)), 'B')).release();
      expect(await attemptsSoFar('attempted')).toBe(before + 1);
    } finally {
      monitor.disconnect();
      viaProxy.disconnect();
      await proxy.close();
    }
  });
});

describe('redlock', () => {
  let clients: Redis[];
  let subscribers: Redis[];
  let lock: RedlockLock;
  beforeAll(async () => {
    clients = await Promise.all(sharedCluster().redlock.map(openRedis));
    subscribers = await Promise.all(sharedCluster().redlock.map(openRedis));
  });
  afterAll(() => {
    for (const c of [...clients, ...subscribers]) c.disconnect();
  });
  beforeEach(async () => {
    await Promise.all(clients.map((c) => deleteLockKeys(c)));
    lock = new RedlockLock(new Redlock(clients, { retryCount: 0 }), new RedlockReleaseHints(clients, subscribers));
  });

  const values = () => Promise.all(clients.map((c) => c.get(redlockKey(R))));
  /**
   * The value every master holds once the last of them took it: the package returns at a quorum,
   * and a master whose script was not yet cached (NOSCRIPT, then EVAL) may apply its vote after that.
   */
  const valueOnEveryMaster = async (): Promise<string> => {
    let held: (string | null)[] = [];
    const landed = await pollUntil(
      async () => {
        held = await values();
        return held[0] !== null && new Set(held).size === 1;
      },
      2_000,
      5,
    );
    expect(landed, JSON.stringify(held)).toBe(true);
    return held[0] as string;
  };
  /** Resolves once no master holds a value (a release, too, returns at a quorum); a value left behind outlives the wait. */
  const freeOnEveryMaster = async (): Promise<void> => {
    expect(await pollUntil(async () => (await values()).every((v) => v === null), 2_000, 5)).toBe(true);
  };

  it('passes the lock to the sleeping contender on every master: a new value, its lease, no release announced', async () => {
    const announced = await listen(sharedCluster().redlock[0] as string, redlockReleaseChannel(R));
    try {
      const a = await take(lock, 'A', { ttlMs: 10_000 });
      // A holds a quorum once a majority voted; the other votes may still be on their way (a
      // master's first EVALSHA comes back NOSCRIPT and is sent again), and one slow enough to time
      // out (a busy machine) never lands. Read once they have landed, or after 2 s.
      const aValue = (await values()).find((v) => v !== null);
      await pollUntil(async () => (await values()).every((v) => v === aValue), 2_000, 10);
      const before = await values();
      expect(before.filter((v) => v === aValue).length).toBeGreaterThan(clients.length / 2);
      expect(
        before.every((v) => v === aValue || v === null),
        JSON.stringify(before),
      ).toBe(true);
      const waiting = take(lock, 'B', { ttlMs: 30_000, retryMs: 1_000 });
      await asleep(lock, 1);
      await a.release();
      const b = await waiting;
      // Every master that held A's value now holds B's, with B's lease; the others hold nothing.
      const after = await values();
      const bValue = after.find((v) => v !== null);
      expect(bValue).toBeDefined();
      expect(bValue).not.toBe(aValue);
      expect(after).toEqual(before.map((v) => (v === null ? null : bValue)));
      for (const [i, c] of clients.entries()) if (before[i] !== null) expect(await c.pttl(redlockKey(R))).toBeGreaterThan(10_000);
      expect(b.lost.aborted).toBe(false);
      await b.release();
      await freeOnEveryMaster();
      expect(await pollUntil(() => announced.messages.length > 0, 2_000, 2)).toBe(true);
      expect(announced.messages).toEqual([bValue]);
    } finally {
      announced.close();
    }
  });

  it('a holder whose lease ran out passes nothing on: the contender takes the lock by its own attempt', async () => {
    // A contender's pause after a failed attempt is random (full jitter, uniform from 0): fixed at
    // retryMs here, so B provably sleeps from before A's lease runs out until A's release claims it,
    // and nobody can take the lock while the masters are read empty.
    const SLEEP_MS = 30_000;
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    try {
      // A's lease is long enough that B's first attempt, made at once, finds A holding on any machine.
      const a = await take(lock, 'A', { ttlMs: 1_500 });
      // B's failed first attempt may leave a vote that landed after its release (a slow master):
      // an unreleased minority expires on its own, so B's lease is kept well inside the wait below.
      const waiting = take(lock, 'B', { ttlMs: 5_000, retryMs: SLEEP_MS, waitMs: 2 * SLEEP_MS });
      await asleep(lock, 1);
      const expiredWithin = 10_000;
      expect(await pollUntil(async () => (await values()).every((v) => v === null), expiredWithin, 10)).toBe(true);
      // Checked and released in one tick: A's release claims B while B still sleeps, and its hand-off
      // finds A's value on no master, so it moves nothing and wakes B to attempt again.
      expect(lock.handoffs.sleeping(R)).toBe(1);
      const releasedAt = Date.now();
      await expect(a.release()).rejects.toBeInstanceOf(LockNotHeldError);
      const b = await waiting;
      const wokeAfter = Date.now() - releasedAt;
      console.log(
        `[handoff] redlock: A's lease ran out while B slept; B took the lock by its own attempt ${wokeAfter} ms after A's release (bound 10000 ms; its sleep was ${SLEEP_MS} ms)`,
      );
      expect(wokeAfter).toBeLessThan(10_000);
      const held = await values();
      expect(new Set(held).size).toBe(1);
      expect(held[0]).not.toBeNull();
      expect(b.lost.aborted).toBe(false);
      await b.release();
      await freeOnEveryMaster();
    } finally {
      random.mockRestore();
    }
  });

  it('a hand-off that only a minority of the masters take grants nothing: the contender is not handed the lock, and nothing it was given is left', async () => {
    // B's pause after its failed attempt fixed (full jitter at 0.5 of a 30 s backoff, cut to its
    // wait): it sleeps until its deadline unless a hand-off claims it, so it provably sleeps when A
    // lets go.
    const WAIT_MS = 4_000;
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    try {
      const a = await take(lock, 'A');
      await valueOnEveryMaster();
      const waiting = take(lock, 'B', { retryMs: 30_000, waitMs: WAIT_MS }).then(
        () => 'granted',
        (err: unknown) => err,
      );
      await asleep(lock, 1);
      // Another owner's value on 3 of the 5 masters (A's votes there expired and were taken): A
      // still holds on 2, so its hand-off script moves the lock to B on those 2 only.
      const other = 'another-owner';
      await Promise.all(clients.slice(0, 3).map((c) => c.set(redlockKey(R), other, 'PX', 60_000)));
      expect(lock.handoffs.sleeping(R)).toBe(1);
      const released = await a.release().then(
        () => 'released',
        (err: unknown) => err,
      );
      // B was woken and attempted on its own: 3 masters say "locked" until its deadline.
      const outcome = await waiting;
      console.log(
        `[handoff] redlock: a hand-off taken by 2 of 5 masters; B's outcome: ${outcome instanceof Error ? outcome.constructor.name : String(outcome)}`,
      );
      expect(outcome).toBeInstanceOf(LockTimeoutError);
      // A's value is on no master any more (moved, then given back), so its own release finds nothing to free.
      expect(released).toBeInstanceOf(LockNotHeldError);
      // Nothing half-moved: the other owner keeps its 3, and what the hand-off moved to B was given back.
      expect(await values()).toEqual([other, other, other, null, null]);
    } finally {
      random.mockRestore();
    }
  });

  it('a contender whose lease is shorter than a round trip is handed nothing it could not write under: no validity, no lease (LockLostError)', async () => {
    // B asks for a 2 ms lease: its validity (ttl − drift − 2 ms) has run out before any master
    // answers, whether the lock comes by A's hand-off or by B's own attempt. B's pause is fixed
    // (full jitter at 0.5 of a 30 s backoff, cut to its wait), so it provably sleeps when A lets go.
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    try {
      const a = await take(lock, 'A');
      await valueOnEveryMaster();
      const waiting = take(lock, 'B', { ttlMs: 2, retryMs: 30_000, waitMs: 4_000 }).then(
        (lease) => lease,
        (err: unknown) => err,
      );
      await asleep(lock, 1);
      expect(lock.handoffs.sleeping(R)).toBe(1);
      await a.release().catch(() => undefined);
      const outcome = await waiting;
      expect(outcome).toBeInstanceOf(LockLostError);
      await freeOnEveryMaster();
    } finally {
      random.mockRestore();
    }
  });

  it('a contender whose client left stops at once, asleep or in line, and is never handed the lock', async () => {
    const a = await take(lock, 'A');
    const asleepClient = new AbortController();
    const inLineClient = new AbortController();
    const sleeping = lock.acquire(R, { ...opts({ retryMs: 1_000 }), owner: 'B', signal: asleepClient.signal }).then(
      () => 'granted',
      (err: unknown) => err,
    );
    await asleep(lock, 1);
    const inLine = lock.acquire(R, { ...opts({ retryMs: 1_000 }), owner: 'C', signal: inLineClient.signal }).then(
      () => 'granted',
      (err: unknown) => err,
    );
    const gone = new Error('the client left');
    inLineClient.abort(gone);
    expect(await settledWithin(inLine, 2_000)).toBe(gone);
    asleepClient.abort(gone);
    expect(await settledWithin(sleeping, 2_000)).toBe(gone);
    expect(lock.handoffs.sleeping(R)).toBe(0);
    await a.release();
    await freeOnEveryMaster();
    // The line is free again: the next contender goes straight in.
    await (await take(lock, 'D', { waitMs: 2_000 })).release();
  });
});
