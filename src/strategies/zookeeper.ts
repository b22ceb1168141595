import type { Lock } from '../locks/lock.js';
import { withLockReentered } from '../locks/reenter-once.js';
import { withLock } from '../locks/scope.js';
import { ZkEphemeralLock } from '../locks/zk/ephemeral.js';
import { MultiLock } from '../locks/zk/multi.js';
import { ZkReadWriteLock } from '../locks/zk/read-write.js';
import { ZkReentrantLock } from '../locks/zk/reentrant.js';
import { ZkSemaphoreMutex } from '../locks/zk/semaphore.js';
import { ZkSequentialLock } from '../locks/zk/sequential.js';
import { ZkSession } from '../locks/zk/session.js';
import { ZkWatchLock } from '../locks/zk/watch.js';
import { STOCK_CODE } from '../stock/product.js';
import { lockedStrategy } from './guarded.js';
import type { FamilyFactory, SharedDeps, Strategy, StrategyFamily } from './strategy.js';

export const ZK_LOCK_ROOT = '/stocklab/locks';

const expected = {
  oneInstance: 'exact',
  threeInstances: 'exact',
  note: "a crashed holder's node vanishes with its session (after the session timeout)",
  faults: { holderCrash: 'after the session timeout', holderPause: 'oversells', holderPauseFenced: 'exact', lostReply: 'released by its owner' },
} as const;

/** Curator's other locks (course §3.7): the fault lab does not measure them, so they declare no fault outcomes. */
const expectedOfRecipes = { oneInstance: expected.oneInstance, threeInstances: expected.threeInstances, note: expected.note } as const;

/** zk-multi's second lock: the warehouse the stock row belongs to. */
const WAREHOUSE_LOCK_RESOURCE = `warehouse:${STOCK_CODE}`;

/** The ZooKeeper recipes (course §3), each over the same read-then-write, over one session. */
export function zookeeperStrategies(session: ZkSession, deps: SharedDeps): StrategyFamily {
  const strategy = (name: string, description: string, lock: Lock, scope = withLock, expectations: Strategy['expected'] = expected): Strategy =>
    lockedStrategy(deps, lock, { name, family: 'zookeeper', description, expected: expectations }, scope);
  return {
    strategies: [
      strategy('zk-ephemeral', 'Create one ephemeral node; if it exists, sleep retryMs and try again (unfair spin).', new ZkEphemeralLock(session)),
      strategy('zk-sequential', 'Queue with an ephemeral-sequential child; poll the children every retryMs until ours is the smallest.', new ZkSequentialLock(session)),
      strategy('zk-watch', 'Queue with an ephemeral-sequential child; watch only the predecessor and wake on its deletion (no herd).', new ZkWatchLock(session)),
      strategy('zk-reentrant', 'zk-watch, reentrant per request (count per owner in process); the critical section re-enters once.', new ZkReentrantLock(session), withLockReentered),
      strategy(
        'zk-semaphore-mutex',
        "Curator's InterProcessSemaphoreMutex: a semaphore of one lease (a gate mutex, then a lease node counted against 1); not reentrant.",
        new ZkSemaphoreMutex(session),
        withLock,
        expectedOfRecipes,
      ),
      strategy(
        'zk-rw-write',
        "Curator's InterProcessReadWriteLock, deducting under its write lock: a __WRIT__ node waits for every node ahead (readers wait only for writers).",
        new ZkReadWriteLock(session).writeLock,
        withLock,
        expectedOfRecipes,
      ),
      strategy(
        'zk-multi',
        "Curator's InterProcessMultiLock over the stock's lock and its warehouse's (each a zk-reentrant lock): both or neither.",
        new MultiLock(new ZkReentrantLock(session), () => [WAREHOUSE_LOCK_RESOURCE]),
        withLock,
        expectedOfRecipes,
      ),
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
