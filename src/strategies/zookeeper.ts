import type { Lock } from '../locks/lock.js';
import { withLockReentered } from '../locks/reenter-once.js';
import { withLock } from '../locks/scope.js';
import { ZkEphemeralLock } from '../locks/zk/ephemeral.js';
import { ZkReentrantLock } from '../locks/zk/reentrant.js';
import { ZkSequentialLock } from '../locks/zk/sequential.js';
import { ZkSession } from '../locks/zk/session.js';
import { ZkWatchLock } from '../locks/zk/watch.js';
import { guarded } from './guarded.js';
import type { FamilyFactory, SharedDeps, Strategy, StrategyFamily } from './strategy.js';

export const ZK_LOCK_ROOT = '/stocklab/locks';

const expected = {
  oneInstance: 'exact',
  threeInstances: 'exact',
  note: "a crashed holder's node vanishes with its session (after the session timeout)",
  faults: { holderCrash: 'after the session timeout', holderPause: 'oversells', holderPauseFenced: 'exact', lostReply: 'released by its owner' },
} as const;

/** The ZooKeeper recipes (course §3), each over the same read-then-write, over one session. */
export function zookeeperStrategies(session: ZkSession, deps: SharedDeps): StrategyFamily {
  const strategy = (name: string, description: string, lock: Lock, scope = withLock): Strategy => ({
    name,
    family: 'zookeeper',
    description,
    expected,
    stores: ['mysql', 'redis'],
    sql: deps.stock.mysql.sql.readThenWrite,
    ...guarded(lock, deps, scope),
  });
  return {
    strategies: [
      strategy('zk-ephemeral', 'Create one ephemeral node; if it exists, sleep retryMs and try again (unfair spin).', new ZkEphemeralLock(session)),
      strategy('zk-sequential', 'Queue with an ephemeral-sequential child; poll the children every retryMs until ours is the smallest.', new ZkSequentialLock(session)),
      strategy('zk-watch', 'Queue with an ephemeral-sequential child; watch only the predecessor and wake on its deletion (no herd).', new ZkWatchLock(session)),
      strategy('zk-reentrant', 'zk-watch, reentrant per request (count per owner in process); the critical section re-enters once.', new ZkReentrantLock(session), withLockReentered),
    ],
    clearLocks: () => session.clearEphemeralNodes(),
    health: async () => ({ zookeeper: session.connected }),
    close: () => session.close(),
  };
}

export const zookeeperFamily: FamilyFactory = async (deps) => {
  const { connect, sessionTimeoutMs } = deps.config.zookeeper;
  const session = await ZkSession.open(
    { connect, sessionTimeoutMs, root: ZK_LOCK_ROOT, logger: deps.logger },
    // Bounded: an instance whose ZooKeeper is down still starts, and its zk strategies answer 503.
    Math.min(deps.config.startupTimeoutMs, 5_000),
  );
  return zookeeperStrategies(session, deps);
};
