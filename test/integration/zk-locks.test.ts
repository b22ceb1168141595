// The ZooKeeper recipes driven directly against the real ZooKeeper: the herd effect counted, and
// what a holder learns when its session expires.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lease, LockOptions } from '../../src/locks/lock.js';
import { pollUntil, sleep } from '../../src/time.js';
import { queueDir, type QueueLock } from '../../src/locks/zk/queue.js';
import { ZkSequentialLock } from '../../src/locks/zk/sequential.js';
import { ZkSession } from '../../src/locks/zk/session.js';
import { ZkWatchLock } from '../../src/locks/zk/watch.js';
import { createLogger } from '../../src/logger.js';
import { sharedCluster } from '../support/cluster.js';
import { expireSession } from '../../faults/zk-session.js';

const zkConnect = sharedCluster().zookeeper;
const opts: LockOptions = { ttlMs: 30_000, waitMs: 20_000, retryMs: 10 };
const WAITERS = 8;
const HOLD_MS = 40;

function openSession(sessionTimeoutMs = 4_000): Promise<ZkSession> {
  return ZkSession.open({ connect: zkConnect, sessionTimeoutMs, root: '/stocklab-test/locks', logger: createLogger('silent') }, 10_000);
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  if (!(await pollUntil(check, timeoutMs, 20))) throw new Error(`timed out waiting for ${what}`);
}

/**
 * One holder, then WAITERS queued behind it; once every waiter is parked, the holder releases and
 * the lock is handed down the queue, each holding HOLD_MS. Returns the lock's counters.
 */
async function handDown(lock: QueueLock, session: ZkSession) {
  const resource = `herd-${randomUUID()}`;
  const first = await lock.acquire(resource, { ...opts, owner: 'holder' });
  const order: number[] = [];
  const waiters = Array.from({ length: WAITERS }, (_, i) =>
    (async () => {
      const lease = await lock.acquire(resource, { ...opts, owner: `waiter-${i}` });
      order.push(i);
      await sleep(HOLD_MS);
      await lease.release();
    })(),
  );
  // Every waiter has queued and looked at the queue at least once before the first hand-off.
  await until('all waiters queued', async () => (await session.getChildren(queueDir(session, resource), Date.now() + 1_000)).length === WAITERS + 1);
  await until('all waiters parked', () => lock.stats.childListings >= WAITERS + 1);
  await sleep(100);
  const before = { ...lock.stats };
  await first.release();
  await Promise.all(waiters);
  return { order, duringHold: before, total: { ...lock.stats } };
}

describe('herd effect: one lock handed down a queue of waiters', () => {
  let session: ZkSession;
  beforeAll(async () => {
    session = await openSession();
  });
  afterAll(() => session.close());

  it(`zk-watch wakes exactly one waiter per hand-off (${WAITERS} hand-offs, ${WAITERS} notifications)`, async () => {
    const lock = new ZkWatchLock(session);
    const r = await handDown(lock, session);
    // Fair: first come, first served, since each waits on the one just before it.
    expect(r.order).toEqual([...Array(WAITERS).keys()]);
    expect(r.total.wakeUps).toBe(WAITERS);
    // The holder lists once; each waiter lists once on arrival and once when woken; nothing while waiting.
    expect(r.duringHold.childListings).toBe(1 + WAITERS);
    expect(r.total.childListings).toBe(1 + 2 * WAITERS);
  });

  it('zk-sequential has every waiter list the children again and again while one holds', async () => {
    const lock = new ZkSequentialLock(session);
    const r = await handDown(lock, session);
    expect(r.order).toEqual([...Array(WAITERS).keys()]);
    // Each hand-off k still has WAITERS − k waiters, and each of them polls at least once during
    // the HOLD_MS of the holder before it: at least WAITERS·(WAITERS+1)/2 listings after the first release.
    const afterRelease = r.total.childListings - r.duringHold.childListings;
    expect(afterRelease).toBeGreaterThanOrEqual((WAITERS * (WAITERS + 1)) / 2);
    console.log(`[herd] ${WAITERS} hand-offs: zk-sequential listed the children ${afterRelease} times; zk-watch needs ${WAITERS}`);
  });
});

describe('a holder whose session expires', () => {
  it('sees lease.lost abort with a reason, its node is gone, and the session is replaced', async () => {
    const session = await openSession(2_000);
    try {
      const lock = new ZkWatchLock(session);
      const resource = `expiry-${randomUUID()}`;
      const lease: Lease = await lock.acquire(resource, { ...opts, owner: 'holder' });
      const { id, password } = session.credentials;
      const dir = queueDir(session, resource);
      expect(await session.getChildren(dir, Date.now() + 1_000)).toHaveLength(1);

      // A second client attaches to the same session and closes it: ZooKeeper expires the session.
      await expireSession(zkConnect, id, password);
      await until('lease.lost', () => lease.lost.aborted);
      expect(String(lease.lost.reason)).toMatch(/connection to ZooKeeper lost|session expired/);

      // The session comes back as a new one (on the holder's next reconnect, or from its watchdog: a
      // connection silent for 2/3 of the session timeout, or none for all of it); the ephemeral node went with the old one.
      await until('a new session', () => session.connected && !session.credentials.id.equals(id), 10_000);
      expect(await session.getChildren(dir, Date.now() + 1_000)).toHaveLength(0);
      await expect(lease.release()).rejects.toThrow(/not held/);
      // And the lock works again for the next owner.
      const next = await lock.acquire(resource, { ...opts, waitMs: 2_000, owner: 'next' });
      await next.release();
    } finally {
      await session.close();
    }
  });
});
