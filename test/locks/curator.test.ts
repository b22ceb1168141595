// Curator's recipes (course §3.7) at lock level, against a ZooKeeper of their own: what each one
// promises beyond the lock contract (zookeeper.contract.test.ts), each order built step by step.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LockTimeoutError } from '../../src/locks/errors.js';
import type { AcquireOptions, Lease, Lock } from '../../src/locks/lock.js';
import { withLockReentered } from '../../src/locks/reenter-once.js';
import { withLock } from '../../src/locks/scope.js';
import { ZkAtomicLong } from '../../src/locks/zk/atomic-long.js';
import { ZkBarrier, ZkDoubleBarrier } from '../../src/locks/zk/barrier.js';
import { MultiLock } from '../../src/locks/zk/multi.js';
import { ZkReadWriteLock } from '../../src/locks/zk/read-write.js';
import { ZkReentrantLock } from '../../src/locks/zk/reentrant.js';
import { ZkSemaphore, ZkSemaphoreMutex, semaphoreDir } from '../../src/locks/zk/semaphore.js';
import { ZkDeadlineError, ZkSession } from '../../src/locks/zk/session.js';
import { ZkSharedCount } from '../../src/locks/zk/shared-count.js';
import { ZkWatchLock } from '../../src/locks/zk/watch.js';
import { childrenIfAny, queueDir } from '../../src/locks/zk/queue.js';
import { createLogger } from '../../src/logger.js';
import { pollUntil, sleep } from '../../src/time.js';
import { withServers } from '../support/servers.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { expireSession } from '../../faults/zk-session.js';

const servers = withServers({ zookeeper: true });

const ROOT = '/stocklab-curator';
const SESSION_MS = 2_000;
const sessions: ZkSession[] = [];

async function openSession(connect = servers.current.zookeeper): Promise<ZkSession> {
  const session = await ZkSession.open({ connect, sessionTimeoutMs: SESSION_MS, root: ROOT, logger: createLogger('silent') }, 10_000);
  if (!session.connected) throw new Error('no ZooKeeper session');
  sessions.push(session);
  return session;
}

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});

const as = (owner: string, waitMs = 10_000): AcquireOptions => ({ owner, waitMs, ttlMs: 30_000, retryMs: 10 });
const resource = () => `curator-${randomUUID()}`;

/** A wait's outcome, without awaiting it: 'pending' until it settles, and when it was granted. */
function track<T>(wait: Promise<T>): { state: () => 'pending' | 'granted' | 'failed'; at: () => number | undefined; lease: Promise<T> } {
  let state: 'pending' | 'granted' | 'failed' = 'pending';
  let at: number | undefined;
  wait.then(
    () => ((state = 'granted'), (at = Date.now())),
    () => (state = 'failed'),
  );
  return { state: () => state, at: () => at, lease: wait };
}

/** Waits until `dir` has `n` children (a waiter's node is queued: it now waits, in its place). */
async function untilChildren(session: ZkSession, dir: string, n: number): Promise<void> {
  const ok = await pollUntil(async () => (await session.getChildren(dir, Date.now() + 1_000).catch(() => [])).length === n, 10_000, 10);
  if (!ok) throw new Error(`${dir} never had ${n} children`);
}

/**
 * `lock`, its first acquire given `outerWaitMs` instead of the request's waitMs: the outer acquire of a
 * nesting, whose own wait is not what a test of the nested one is about (on a loaded machine the first
 * use of a resource, which creates its parent nodes, can take the whole 300 ms by itself, and the outer
 * acquire then times out before the nested one ever runs). `acquires` says how each ended, and when.
 */
function outerWaits<L extends Lease>(lock: Lock<L>, outerWaitMs: number): { lock: Lock<L>; acquires: { outcome: string; waitedMs: number }[] } {
  const acquires: { outcome: string; waitedMs: number }[] = [];
  let calls = 0;
  const acquire = async (r: string, opts: AcquireOptions): Promise<L> => {
    const startedAt = Date.now();
    const ended = (outcome: string) => acquires.push({ outcome, waitedMs: Date.now() - startedAt });
    try {
      const lease = await lock.acquire(r, calls++ === 0 ? { ...opts, waitMs: outerWaitMs } : opts);
      ended('granted');
      return lease;
    } catch (err) {
      ended(err instanceof LockTimeoutError ? 'timed out' : String(err));
      throw err;
    }
  };
  return { lock: { acquire }, acquires };
}

describe('semaphore mutex (InterProcessSemaphoreMutex)', () => {
  it('is not reentrant: the critical section entered again within one request waits for itself, then times out', async () => {
    const session = await openSession();
    const r = resource();
    const mutex = outerWaits(new ZkSemaphoreMutex(session), 10_000);
    await expect(withLockReentered(mutex.lock, r, as('request-1', 300), async () => 'sold')).rejects.toBeInstanceOf(LockTimeoutError);
    // The outer acquire was granted; the nested one waited for it the whole 300 ms.
    expect(mutex.acquires.map((a) => a.outcome)).toEqual(['granted', 'timed out']);
    expect(mutex.acquires[1]!.waitedMs).toBeGreaterThanOrEqual(295);
    // The same nesting passes straight through the reentrant mutex (InterProcessMutex).
    expect((await withLockReentered(new ZkReentrantLock(session), r, as('request-1'), async () => 'sold')).value).toBe('sold');
    // And the timed-out attempt left neither its gate nor its lease behind.
    expect(await childrenIfAny(session, `${semaphoreDir(session, r)}/leases`, Date.now() + 1_000)).toEqual([]);
    expect(await childrenIfAny(session, `${semaphoreDir(session, r)}/locks`, Date.now() + 1_000)).toEqual([]);
  });

  it('an acquire that times out at the gate, before its resource has a leases node, leaves nothing behind', async () => {
    const session = await openSession();
    const other = await openSession();
    const r = resource();
    const locks = `${semaphoreDir(other, r)}/locks`;
    // Another acquirer holds the gate (the recipe's first step) and never takes its lease: the leases
    // parent does not exist yet, as in an outer acquire whose first use of a resource ran out of time.
    await other.mkdirp(locks, Date.now() + 5_000);
    const held = await other.create(`${locks}/_c_${randomUUID()}-lock-`, 'other', 'sequential', Date.now() + 5_000);
    await expect(new ZkSemaphoreMutex(session).acquire(r, as('A', 300))).rejects.toBeInstanceOf(LockTimeoutError);
    // A parent that never existed has no participants: read as none (NO_NODE), not as an error.
    expect(await childrenIfAny(session, `${semaphoreDir(session, r)}/leases`, Date.now() + 1_000)).toEqual([]);
    expect(await childrenIfAny(session, locks, Date.now() + 1_000)).toEqual([held.slice(locks.length + 1)]);
  });

  it("an acquire cut short while creating its resource's parents owes no failed clean-up: a parent that never existed holds no orphan", async () => {
    const logger = createLogger('silent');
    const warn = vi.spyOn(logger, 'warn');
    const session = await ZkSession.open({ connect: servers.current.zookeeper, sessionTimeoutMs: SESSION_MS, root: ROOT, logger }, 10_000);
    sessions.push(session);
    // First use of a resource: the create finds no parent and the parents' creation runs out of time
    // (never sent here), so the protected-mode search for an orphan lists a parent that does not exist.
    vi.spyOn(session, 'mkdirp').mockRejectedValue(new ZkDeadlineError());
    const listings = vi.spyOn(session, 'getChildren');
    await expect(new ZkSemaphoreMutex(session).acquire(resource(), as('A', 1_000))).rejects.toBeInstanceOf(LockTimeoutError);
    expect(listings).toHaveBeenCalledTimes(1);
    await Promise.allSettled(listings.mock.results.map((l) => l.value));
    await new Promise((resolve) => setImmediate(resolve)); // the owed clean-up has settled
    expect(warn).not.toHaveBeenCalled();
  });
});

describe('read-write lock (InterProcessReadWriteLock)', () => {
  it('readers share; a writer waits for the readers ahead; a reader behind a waiting writer waits too', async () => {
    const session = await openSession();
    const { readLock, writeLock } = new ZkReadWriteLock(session);
    const r = resource();
    const r1 = await readLock.acquire(r, as('R1'));
    const r2 = await readLock.acquire(r, as('R2', 300)); // no writer ahead: at once
    const w = track(writeLock.acquire(r, as('W')));
    await untilChildren(session, queueDir(session, r), 3);
    await expect(readLock.acquire(r, as('R3', 300))).rejects.toBeInstanceOf(LockTimeoutError); // writer ahead
    await r1.release();
    await r2.release();
    await (await w.lease).release();
    expect(w.state()).toBe('granted');
  });

  it('a writer downgrades: its read is granted at once, and a writer queued meanwhile still waits for that read', async () => {
    const session = await openSession();
    const { readLock, writeLock } = new ZkReadWriteLock(session);
    const r = resource();
    const write = await writeLock.acquire(r, as('A'));
    const other = track(writeLock.acquire(r, as('B')));
    await untilChildren(session, queueDir(session, r), 2);
    // Not a downgrade, this would wait for A's write and B's, and time out.
    const read = await readLock.acquire(r, as('A', 300));
    await write.release();
    // Curator before CURATOR-621 let B in here, beside A's read. Give such a bug time to show.
    await sleep(500);
    expect(other.state()).toBe('pending');
    const readReleasedAt = Date.now();
    await read.release();
    await (await other.lease).release();
    expect(other.at()).toBeGreaterThanOrEqual(readReleasedAt);
  });

  it("a write lost with its session is no write to downgrade: that owner's read waits for the writer who came in since", async () => {
    const session = await openSession();
    const other = await openSession();
    const { readLock, writeLock } = new ZkReadWriteLock(session);
    const r = resource();
    const write = await writeLock.acquire(r, as('A'));
    const { id, password } = session.credentials;
    await expireSession(servers.current.zookeeper, id, password);
    if (!(await pollUntil(() => session.connected && !session.credentials.id.equals(id), 10_000))) throw new Error('no new session');
    expect(write.lost.aborted).toBe(true);
    // A's write node went with its session: B's write is granted.
    const b = await new ZkReadWriteLock(other).writeLock.acquire(r, as('B', 5_000));
    // A's read, still named after its lost write, must queue behind B's write, not beside it.
    await expect(readLock.acquire(r, as('A', 300))).rejects.toBeInstanceOf(LockTimeoutError);
    await b.release();
    await (await readLock.acquire(r, as('A', 2_000))).release();
    await write.release().catch(() => undefined);
  });

  it('a reader cannot upgrade: its write waits for its own read until waitMs', async () => {
    const session = await openSession();
    const { readLock, writeLock } = new ZkReadWriteLock(session);
    const r = resource();
    const read = await readLock.acquire(r, as('A'));
    await expect(writeLock.acquire(r, as('A', 300))).rejects.toBeInstanceOf(LockTimeoutError);
    await read.release();
    await (await writeLock.acquire(r, as('A', 1_000))).release();
  });

  it('many readers and writers at once on two sessions: never a writer beside anyone, and readers together', async () => {
    const locks = [new ZkReadWriteLock(await openSession()), new ZkReadWriteLock(await openSession())];
    const r = resource();
    const inside = { read: 0, write: 0 };
    let mostReaders = 0;
    let writerBesideSomeone = 0;
    const enter = async (i: number) => {
      const mode = i % 4 === 0 ? 'write' : 'read';
      const rw = locks[i % 2]!;
      await withLock(mode === 'read' ? rw.readLock : rw.writeLock, r, as(`owner-${i}`), async () => {
        inside[mode]++;
        if (inside.write > 1 || (inside.write === 1 && inside.read > 0)) writerBesideSomeone++;
        mostReaders = Math.max(mostReaders, inside.read);
        await sleep(20);
        inside[mode]--;
      });
    };
    await Promise.all(Array.from({ length: 40 }, (_, i) => enter(i)));
    expect(writerBesideSomeone).toBe(0);
    console.log(`[rw] 40 acquires (10 writes): at most ${mostReaders} readers at once`);
  });
});

describe('semaphore (InterProcessSemaphoreV2)', () => {
  it('grants maxLeases at once, the next waits for a lease to come back, and a crowd never exceeds maxLeases', async () => {
    const session = await openSession();
    const semaphore = new ZkSemaphore(session, 3);
    const r = resource();
    const held = [await semaphore.acquire(r, as('a')), await semaphore.acquire(r, as('b')), await semaphore.acquire(r, as('c'))];
    await expect(semaphore.acquire(r, as('d', 300))).rejects.toBeInstanceOf(LockTimeoutError);
    const fourth = track(semaphore.acquire(r, as('d')));
    await untilChildren(session, `${semaphoreDir(session, r)}/leases`, 4);
    await held[0]!.release();
    await (await fourth.lease).release();
    await Promise.all(held.slice(1).map((l) => l.release()));

    let inside = 0;
    let most = 0;
    const crowd = new ZkSemaphore(await openSession(), 3);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        withLock(i % 2 ? semaphore : crowd, r, as(`crowd-${i}`), async () => {
          most = Math.max(most, ++inside);
          await sleep(20);
          inside--;
        }),
      ),
    );
    expect(most).toBeLessThanOrEqual(3);
    console.log(`[semaphore] 20 holders through 3 leases: at most ${most} at once`);
  });

  it('a holder that stops answering (a crash) gets its leases back to the others when its session expires', async () => {
    const frozen = await TcpProxy.start(Number(servers.current.zookeeper.split(':')[1]));
    try {
      const holder = await openSession(`127.0.0.1:${frozen.port}`);
      const waiter = await openSession();
      const r = resource();
      const leases = `${semaphoreDir(waiter, r)}/leases`;
      await new ZkSemaphore(holder, 2).acquire(r, as('held-1'));
      await new ZkSemaphore(holder, 2).acquire(r, as('held-2'));
      const next = track(new ZkSemaphore(waiter, 2).acquire(r, as('next', 20_000)));
      await untilChildren(waiter, leases, 3);
      const frozenAt = Date.now();
      frozen.freeze();
      await next.lease;
      const waited = next.at()! - frozenAt;
      console.log(`[semaphore] a frozen holder's leases came back ${waited} ms after it stopped answering (session timeout ${SESSION_MS} ms)`);
      // ZooKeeper expires a session that was silent for its timeout (it last heard of it at most a third of that before).
      expect(waited).toBeGreaterThan(SESSION_MS / 2);
      expect(waited).toBeLessThan(SESSION_MS + 5_000);
      expect(await waiter.getChildren(leases, Date.now() + 1_000)).toHaveLength(1);
    } finally {
      await frozen.close();
    }
  });
});

describe('multi-lock (InterProcessMultiLock)', () => {
  it('all or nothing: a multi-lock that cannot have one of its locks gives back the ones it took', async () => {
    const session = await openSession();
    const mutex = new ZkReentrantLock(session);
    const multi = new MultiLock(mutex, (r) => [`${r}/b`]);
    const r = resource();
    // `${r}` sorts before `${r}/b`: the multi-lock takes r, then waits for r/b, held here.
    const b = await mutex.acquire(`${r}/b`, as('holder'));
    await expect(multi.acquire(r, as('multi', 300))).rejects.toBeInstanceOf(LockTimeoutError);
    await (await mutex.acquire(r, as('other', 300))).release(); // r was given back
    await b.release();
    const both = await multi.acquire(r, as('multi'));
    await expect(mutex.acquire(`${r}/b`, as('other', 300))).rejects.toBeInstanceOf(LockTimeoutError);
    await both.release();
  });
});

describe('barriers', () => {
  it('DistributedBarrier: waiters wait while it is set, and all go once it is removed', async () => {
    const session = await openSession();
    const barrier = new ZkBarrier(session, `${ROOT}/barrier-${randomUUID()}`);
    await barrier.set(Date.now() + 5_000);
    await expect(barrier.waitOn(200)).rejects.toBeInstanceOf(LockTimeoutError);
    const waiters = [barrier.waitOn(10_000), new ZkBarrier(await openSession(), barrier.path).waitOn(10_000)];
    await sleep(100);
    await barrier.remove(Date.now() + 5_000);
    await Promise.all(waiters);
  });

  it('DistributedDoubleBarrier: members that give up delete their nodes, so the next round still waits for all of its members', async () => {
    const session = await openSession();
    const path = `${ROOT}/double-${randomUUID()}`;
    const barrier = new ZkDoubleBarrier(session, path, 3);
    const t0 = Date.now();
    const gaveUp = await Promise.allSettled([barrier.enter(300), barrier.enter(300)]);
    expect(gaveUp.map((g) => g.status === 'rejected' && g.reason instanceof LockTimeoutError)).toEqual([true, true]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(295);
    expect(await session.getChildren(path, Date.now() + 1_000)).toEqual([]);

    // Two members of the next round, on another session: with the stale nodes they would enter at once.
    const other = new ZkDoubleBarrier(await openSession(), path, 3);
    const early = [track(other.enter(10_000)), track(barrier.enter(10_000))];
    await untilChildren(session, path, 2);
    await sleep(300);
    const thirdAt = Date.now();
    const third = await barrier.enter(10_000);
    const members = [third, ...(await Promise.all(early.map((e) => e.lease)))];
    expect(early.map((e) => e.at()! >= thirdAt)).toEqual([true, true]);
    await Promise.all(members.map((m) => barrier.leave(m, 10_000)));
    expect(await session.getChildren(path, Date.now() + 1_000)).toEqual([]);
  });
});

describe('counters', () => {
  it('SharedCount: compare-and-set refuses a stale version, and a listener on another session hears each new value', async () => {
    const path = `${ROOT}/count-${randomUUID()}`;
    const a = new ZkSharedCount(await openSession(), path, 0);
    const b = new ZkSharedCount(await openSession(), path, 0);
    const heard: number[] = [];
    a.addListener((v) => heard.push(v.value));
    const seen = await a.read(Date.now() + 5_000);
    expect(seen.value).toBe(0);
    expect(await b.trySet(await b.read(Date.now() + 5_000), 7)).toBe(true);
    expect(await a.trySet(seen, 1)).toBe(false); // b wrote since a read
    expect(await pollUntil(() => heard.includes(7), 5_000, 10)).toBe(true);
    expect((await a.read(Date.now() + 5_000)).value).toBe(7);
    a.close();
    b.close();
  });

  it('DistributedAtomicLong: concurrent increments from two sessions all land, the losers promoted to the lock', async () => {
    const path = `${ROOT}/atomic-${randomUUID()}`;
    const longs = await Promise.all([openSession(), openSession()]).then((ss) =>
      ss.map((s) => new ZkAtomicLong(s, path, { optimisticTries: 1, lock: new ZkWatchLock(s), lockResource: `${path}-lock` })),
    );
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, i) => longs[i % 2]!.add(1, as(`inc-${i}`))));
    expect(outcomes.every((o) => o.succeeded)).toBe(true);
    expect((await longs[0]!.get(Date.now() + 5_000)).value).toBe(30);
    // Each increment wrote its own value: 1 to 30, each once.
    expect(outcomes.map((o) => o.postValue).sort((x, y) => x! - y!)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    const promoted = outcomes.filter((o) => o.promotedTries > 0).length;
    console.log(`[atomic] 30 concurrent increments: ${promoted} promoted to the lock`);
  });
});
