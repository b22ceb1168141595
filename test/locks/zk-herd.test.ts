// zk-herd against zk-watch, driven directly on a ZooKeeper of its own: the wake-ups of each hand-off,
// counted one hand-off at a time. Each waiter holds the lock until the test releases it, so every
// hand-off starts with every remaining waiter parked on its watch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wakeUpsPerHandOff } from '../../faults/zk-wakeups.js';
import { ZkHerdLock } from '../../src/locks/zk/herd.js';
import { ZkSession } from '../../src/locks/zk/session.js';
import { ZkWatchLock } from '../../src/locks/zk/watch.js';
import { createLogger } from '../../src/logger.js';
import { withServers } from '../support/servers.js';

const servers = withServers({ zookeeper: true });
const WAITERS = 6;

describe('the herd: every waiter watching the one lock node', () => {
  let session: ZkSession;
  beforeAll(async () => {
    session = await ZkSession.open(
      { connect: servers.current.zookeeper, sessionTimeoutMs: 4_000, root: '/stocklab-test/locks', logger: createLogger('silent') },
      10_000,
    );
  });
  afterAll(() => session.close());

  it(`zk-herd wakes every waiter at each hand-off (W waiters: W wake-ups); zk-watch wakes one`, async () => {
    const herd = new ZkHerdLock(session);
    const herdWakeUps = await wakeUpsPerHandOff(herd, WAITERS);
    const watchWakeUps = await wakeUpsPerHandOff(new ZkWatchLock(session), WAITERS);
    const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    console.log(
      `[herd] ${WAITERS} waiters, wake-ups per hand-off: zk-herd ${JSON.stringify(herdWakeUps)} (${total(herdWakeUps)} in all), zk-watch ${JSON.stringify(watchWakeUps)} (${total(watchWakeUps)})`,
    );
    expect(herdWakeUps).toEqual(Array.from({ length: WAITERS }, (_, k) => WAITERS - k));
    expect(watchWakeUps).toEqual(Array(WAITERS).fill(1));
  });
});
