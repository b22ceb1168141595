// A zk-watch waiter whose predecessor leaves between the listing and the watch must not leave a
// watch behind on the server: a watch on a node that is gone would wait for a creation that never
// comes, and ZooKeeper keeps it for the whole session (a 30-minute soak saw the count grow ~6/min).
// The order is built: the test's lock removes the predecessor right after listing the queue.
import { expect, it } from 'vitest';
import { ZkSession } from '../../src/locks/zk/session.js';
import { ZkWatchLock } from '../../src/locks/zk/watch.js';
import type { Turn } from '../../src/locks/zk/queue.js';
import { createLogger } from '../../src/logger.js';
import { fourLetter } from '../../faults/soak/sample.js';
import { withServers } from '../support/servers.js';

const servers = withServers({ zookeeper: true });

/** zk-watch whose listing, once, is followed at once by the predecessor's deletion (by its holder's release). */
class PredecessorLeavesAfterListing extends ZkWatchLock {
  beforeWatch?: () => Promise<void>;
  protected override async listQueue(turn: Turn): Promise<string[]> {
    const queue = await super.listQueue(turn);
    const step = this.beforeWatch;
    this.beforeWatch = undefined;
    if (step) await step();
    return queue;
  }
}

async function watchCount(connect: string): Promise<number> {
  const m = /^zk_watch_count\s+(\d+)/m.exec(await fourLetter(connect, 'mntr'));
  if (!m) throw new Error('mntr gave no zk_watch_count');
  return Number(m[1]);
}

it('a waiter whose predecessor left before its watch was set leaves no watch on the server', async () => {
  const connect = servers.current.zookeeper;
  const open = () => ZkSession.open({ connect, sessionTimeoutMs: 4_000, root: '/stocklab-leftover/locks', logger: createLogger('silent') }, 10_000);
  const [holderSession, waiterSession] = [await open(), await open()];
  try {
    const holder = new ZkWatchLock(holderSession);
    const waiter = new PredecessorLeavesAfterListing(waiterSession);
    const opts = { waitMs: 5_000, ttlMs: 0, retryMs: 20 };
    const held = await holder.acquire('stock', { ...opts, owner: 'holder' });
    const before = await watchCount(connect);
    waiter.beforeWatch = () => held.release();
    const lease = await waiter.acquire('stock', { ...opts, owner: 'waiter' });
    const after = await watchCount(connect);
    console.log(`[zk-watch] server watches before ${before}, after the waiter got the lock ${after}`);
    expect(after).toBe(before);
    await lease.release();
  } finally {
    await Promise.all([holderSession.close(), waiterSession.close()]);
  }
});
