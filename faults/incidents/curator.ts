// Curator #727 (CURATOR-206): a holder whose ZooKeeper session expires while it holds is "not
// interrupted and still thinks it has the lock", and a second client acquires it. Rebuilt on the
// lab's zk-watch lock (Curator's InterProcessMutex design: an ephemeral-sequential node, each waiter
// watching the one before it) with two sessions of its own, the first expired from outside as a
// partition or a pause would; then the same fault through the service, where the holder heeds it.
import { randomUUID } from 'node:crypto';
import { ZkSession } from '../../src/locks/zk/session.js';
import { ZkWatchLock } from '../../src/locks/zk/watch.js';
import { createLogger } from '../../src/logger.js';
import { expiryCase } from '../scenarios/zk-session-expiry.js';
import type { FaultContext } from '../scenario.js';
import { expireSession } from '../zk-session.js';
import { answerOf, faultLabTrial } from './fault-lab-trial.js';
import { LAB, type Trial, type TrialSpec } from './incident.js';

const SESSION_MS = 2_000;
const ROOT = '/stocklab-incidents/curator';
const LOCK_OPTIONS = { ttlMs: 30_000, waitMs: 5_000, retryMs: 20 };

const openSession = (ctx: FaultContext) =>
  ZkSession.open({ connect: ctx.cluster.info.zookeeper, sessionTimeoutMs: SESSION_MS, root: ROOT, logger: createLogger('silent') }, 10_000);

/**
 * A holds, its session is expired from a second client, then B asks for the lock. A's code, as in
 * the report, goes on without looking at what its lock told it (lease.lost): two holders when B is
 * granted the lock before A released it.
 */
export const sessionExpiredUnheeded: TrialSpec = {
  pkg: `${LAB} zk-watch lock, its loss not heeded`,
  async run(ctx): Promise<Omit<Trial, 'pkg' | 'version'>> {
    const [a, b] = [await openSession(ctx), await openSession(ctx)];
    try {
      const resource = `curator-727-${randomUUID()}`;
      const held = await new ZkWatchLock(a).acquire(resource, { ...LOCK_OPTIONS, owner: 'A' });
      const { id, password } = a.credentials;
      await expireSession(ctx.cluster.info.zookeeper, id, password);
      const t0 = Date.now();
      const second = await new ZkWatchLock(b).acquire(resource, { ...LOCK_OPTIONS, owner: 'B' }).then(
        (lease) => ({ granted: true as const, lease }),
        (err: unknown) => ({ granted: false as const, error: err instanceof Error ? err.message : String(err) }),
      );
      const grantedInMs = Date.now() - t0;
      // What A's lock told it, which the report's code never asked.
      const told = held.lost.aborted;
      if (second.granted) await second.lease.release();
      await held.release().catch(() => undefined);
      const twoHolders = second.granted;
      return {
        reproduced: twoHolders,
        measured: {
          en: `A's session expired while it held; B ${second.granted ? `was granted the lock ${grantedInMs} ms later while A had not released it: two holders` : `was refused (${second.error})`}; A's lease.lost ${told ? 'had fired (unheeded)' : 'had not fired'}`,
          zh: `A 持锁时会话过期；B ${second.granted ? `在 ${grantedInMs} ms 后拿到了锁，而 A 并没有释放：两个持锁者` : `被拒绝（${second.error}）`}；A 的 lease.lost ${told ? '已经触发（但没人理会）' : '没有触发'}`,
        },
        facts: { twoHolders, lostToldA: told, grantedInMs },
      };
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  },
};

/** The same fault through the service: zk-watch's holder frozen past its session, as the fault lab's zk-session-expiry builds it. */
export const sessionExpiredHeeded = faultLabTrial('zk-watch, through the service', (ctx) => expiryCase(ctx, 'zk-watch'), {
  reproduced: (row) => row.oversold > 0,
  facts: (row) => ({ holder: answerOf(row, 'holder') }),
  measured: (row) => {
    const holder = answerOf(row, 'holder');
    const sold = row.byRole.sell?.['200'] ?? 0;
    return {
      en: `the holder frozen past its session, ${sold} sold by the others meanwhile; resumed, it answered ${holder}; oversold ${row.oversold}`,
      zh: `持锁者冻结超过会话超时，期间其他实例卖出 ${sold} 件；恢复后它的回答 ${holder}；超卖 ${row.oversold}`,
    };
  },
});
