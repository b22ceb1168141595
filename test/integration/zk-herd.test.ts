// zk-herd against zk-watch, driven directly on the real ZooKeeper: the wake-ups of each hand-off,
// counted one hand-off at a time. Each waiter holds the lock until the test releases it, so every
// hand-off starts with every remaining waiter parked on its watch.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lease, LockOptions } from '../../src/locks/lock.js';
import { pollUntil } from '../../src/time.js';
import { ZkHerdLock } from '../../src/locks/zk/herd.js';
import type { QueueLock } from '../../src/locks/zk/queue.js';
import { ZkSession } from '../../src/locks/zk/session.js';
import { ZkWatchLock } from '../../src/locks/zk/watch.js';
import { createLogger } from '../../src/logger.js';
import { sharedCluster } from '../support/cluster.js';

const zkConnect = sharedCluster().zookeeper;
const opts: LockOptions = { ttlMs: 30_000, waitMs: 20_000, retryMs: 10 };
const WAITERS = 6;

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  if (!(await pollUntil(check, timeoutMs, 5))) throw new Error(`timed out waiting for ${what}`);
}

/**
 * A holder, WAITERS queued behind it; then, one hand-off at a time: once the waiters left are
 * parked (`parked(n)`), release the current holder, wait until the next one holds, and count the
 * wake-ups in between. Returns the wake-ups of each hand-off.
 */
async function wakeUpsPerHandOff(lock: QueueLock): Promise<number[]> {
  const resource = `herd-${randomUUID()}`;
  let holder: Lease = await lock.acquire(resource, { ...opts, owner: 'holder' });
  const granted: Lease[] = [];
  const waiters = Array.from({ length: WAITERS }, (_, i) => lock.acquire(resource, { ...opts, owner: `waiter-${i}` }).then((lease) => void granted.push(lease)));
  const perHandOff: number[] = [];
  for (let k = 0; k < WAITERS; k++) {
    await until(`${WAITERS - k} waiters parked`, () => lock.stats.parked === WAITERS - k);
    const before = lock.stats.wakeUps;
    await holder.release();
    await until(`hand-off ${k + 1}`, () => granted.length === k + 1);
    perHandOff.push(lock.stats.wakeUps - before);
    holder = granted[k]!;
  }
  await holder.release();
  await Promise.all(waiters);
  return perHandOff;
}

describe('the herd: every waiter watching the one lock node', () => {
  let session: ZkSession;
  beforeAll(async () => {
    session = await ZkSession.open({ connect: zkConnect, sessionTimeoutMs: 4_000, root: '/stocklab-test/locks', logger: createLogger('silent') }, 10_000);
  });
  afterAll(() => session.close());

  it(`zk-herd wakes every waiter at each hand-off (W waiters: W wake-ups); zk-watch wakes one`, async () => {
    const herd = new ZkHerdLock(session);
    const herdWakeUps = await wakeUpsPerHandOff(herd);
    const watchWakeUps = await wakeUpsPerHandOff(new ZkWatchLock(session));
    const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    console.log(`[herd] ${WAITERS} waiters, wake-ups per hand-off: zk-herd ${JSON.stringify(herdWakeUps)} (${total(herdWakeUps)} in all), zk-watch ${JSON.stringify(watchWakeUps)} (${total(watchWakeUps)})`);
    expect(herdWakeUps).toEqual(Array.from({ length: WAITERS }, (_, k) => WAITERS - k));
    expect(watchWakeUps).toEqual(Array(WAITERS).fill(1));
  });
});
