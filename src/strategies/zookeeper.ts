import { withLockReentered } from '../locks/reenter-once.js';
import { ZkEphemeralLock } from '../locks/zk/ephemeral.js';
import { MultiLock } from '../locks/zk/multi.js';
import { ZkReadWriteLock } from '../locks/zk/read-write.js';
import { ZkReentrantLock } from '../locks/zk/reentrant.js';
import { ZkSemaphoreMutex } from '../locks/zk/semaphore.js';
import { ZkSequentialLock } from '../locks/zk/sequential.js';
import { ZkSession } from '../locks/zk/session.js';
import { ZkHerdLock } from '../locks/zk/herd.js';
import { ZkWatchLock } from '../locks/zk/watch.js';
import { STOCK_CODE } from '../stock/product.js';
import { declareStrategies } from './declare.js';
import type { FamilyFactory, OwnDeduction, SharedDeps, StrategyFamily } from './strategy.js';

export const ZK_LOCK_ROOT = '/stocklab/locks';

/** A crashed holder's node vanishes with its session: ZooKeeper locks have no lease to outlast. */
const expected: OwnDeduction['expected'] = {
  oneInstance: 'exact',
  threeInstances: 'exact',
  note: "a crashed holder's node vanishes with its session (after the session timeout)",
};

/** zk-multi's second lock: the warehouse the stock row belongs to. */
const WAREHOUSE_LOCK_RESOURCE = `warehouse:${STOCK_CODE}`;

/**
 * The ZooKeeper recipes (course §3), each over the same read-then-write, over one session. The fault
 * lab measures the course's four; Curator's other locks (§3.7) it does not run.
 */
export function zookeeperStrategies(session: ZkSession, deps: SharedDeps): StrategyFamily {
  const family = 'zookeeper';
  return {
    strategies: declareStrategies(deps, [
      {
        name: 'zk-ephemeral',
        family,
        course: '§3.3',
        description: 'Create one ephemeral node; if it exists, sleep retryMs and try again (unfair spin).',
        expected,
        lock: new ZkEphemeralLock(session),
        faultLab: true,
      },
      {
        name: 'zk-sequential',
        family,
        course: '§3.4',
        description: 'Queue with an ephemeral-sequential child; poll the children every retryMs until ours is the smallest.',
        expected,
        lock: new ZkSequentialLock(session),
        faultLab: true,
      },
      {
        name: 'zk-herd',
        family,
        course: '§3.4.2',
        description: 'Queue with an ephemeral-sequential child; every waiter watches the lock node (the head of the queue), so each release wakes them all (the herd).',
        expected: { ...expected, note: `${expected.note}; each release wakes every waiter, and each lists the queue again: W waiters cost W wake-ups per hand-off, zk-watch 1` },
        lock: new ZkHerdLock(session),
        faultLab: true,
      },
      {
        name: 'zk-watch',
        family,
        course: '§3.4.2',
        description: 'Queue with an ephemeral-sequential child; watch only the predecessor and wake on its deletion (no herd).',
        expected,
        lock: new ZkWatchLock(session),
        faultLab: true,
      },
      {
        name: 'zk-reentrant',
        family,
        course: '§3.5',
        description: 'zk-watch, reentrant per request (count per owner in process); the critical section re-enters once.',
        expected,
        lock: new ZkReentrantLock(session),
        scope: withLockReentered,
        faultLab: true,
      },
      {
        name: 'zk-semaphore-mutex',
        family,
        course: '§3.7',
        description: "Curator's InterProcessSemaphoreMutex: a semaphore of one lease (a gate mutex, then a lease node counted against 1); not reentrant.",
        expected,
        lock: new ZkSemaphoreMutex(session),
      },
      {
        name: 'zk-rw-write',
        family,
        course: '§3.7',
        description: "Curator's InterProcessReadWriteLock, deducting under its write lock: a __WRIT__ node waits for every node ahead (readers wait only for writers).",
        expected,
        lock: new ZkReadWriteLock(session).writeLock,
      },
      {
        name: 'zk-multi',
        family,
        course: '§3.7',
        description: "Curator's InterProcessMultiLock over the stock's lock and its warehouse's (each a zk-reentrant lock): both or neither.",
        expected,
        lock: new MultiLock(new ZkReentrantLock(session), () => [WAREHOUSE_LOCK_RESOURCE]),
      },
    ]),
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
