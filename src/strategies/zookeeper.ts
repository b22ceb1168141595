import { withLockReentered } from '../locks/reenter-once.js';
import { ZkEphemeralLock } from '../locks/zk/ephemeral.js';
import { MultiLock } from '../locks/zk/multi.js';
import { ZkReadWriteLock } from '../locks/zk/read-write.js';
import { ZkReentrantLock } from '../locks/zk/reentrant.js';
import { ZkSemaphoreMutex } from '../locks/zk/semaphore.js';
import { ZkSequentialLock } from '../locks/zk/sequential.js';
import { ZK_GRANTS_PER_NODE, ZkSession } from '../locks/zk/session.js';
import { MAX_HANDOFF_STREAK } from '../locks/handoff.js';
import { ProcessLine } from '../locks/process-line.js';
import { ZkHerdLock } from '../locks/zk/herd.js';
import { ZkWatchLock } from '../locks/zk/watch.js';
import { STOCK_CODE } from '../stock/product.js';
import { declareStrategies } from './declare.js';
import { withLinedRow } from './lined.js';
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
  /** zk-watch behind a process line (the `+line` rows, and zk-multi): one node per instance in the queue, grants passed within the instance. */
  const linedWatch = () => new ProcessLine(new ZkWatchLock(session), ZK_GRANTS_PER_NODE);
  return {
    strategies: declareStrategies(deps, [
      {
        name: 'zk-ephemeral',
        family,
        course: '§3.3',
        description: {
          en: 'Create one ephemeral node; if it exists, sleep retryMs and try again (unfair spin).',
          zh: '创建一个临时节点；节点已存在就睡眠 retryMs 再试（自旋，非公平）。',
        },
        expected,
        lock: new ZkEphemeralLock(session),
        faultLab: true,
      },
      {
        name: 'zk-sequential',
        family,
        course: '§3.4',
        description: {
          en: 'Queue with an ephemeral-sequential child; poll the children every retryMs until ours is the smallest.',
          zh: '创建一个临时序列化子节点排队；每隔 retryMs 轮询一次子节点列表，直到自己的序号最小。',
        },
        expected,
        lock: new ZkSequentialLock(session),
        faultLab: true,
      },
      {
        name: 'zk-herd',
        family,
        course: '§3.4.2',
        description: {
          en: 'Queue with an ephemeral-sequential child; every waiter watches the lock node (the head of the queue), so each release wakes them all (the herd).',
          zh: '创建一个临时序列化子节点排队；所有等待者都监听锁节点（队首），于是每次释放都会唤醒全部等待者：羊群效应。',
        },
        expected: {
          ...expected,
          note: `${expected.note}; each release wakes every waiter, and each lists the queue again: W waiters cost W wake-ups per hand-off, zk-watch 1`,
        },
        lock: new ZkHerdLock(session),
        faultLab: true,
      },
      ...withLinedRow(
        {
          name: 'zk-watch',
          family,
          course: '§3.4.2',
          description: {
            en: 'Queue with an ephemeral-sequential child; watch only the predecessor and wake on its deletion (no herd). One node per request, as the course has it.',
            zh: '创建一个临时序列化子节点排队；只监听前一个节点，它被删除时才醒来（没有羊群效应）。与课程一致：每个请求一个节点。',
          },
          expected,
          lock: new ZkWatchLock(session),
          faultLab: true,
        },
        {
          lock: linedWatch(),
          description: {
            en: `zk-watch behind a process line: one node per instance; its requests line up in memory and the holder passes the node on (at most ${MAX_HANDOFF_STREAK} times in a row).`,
            zh: `在进程内排队的 zk-watch：每个实例只排一个节点；实例内的请求在内存中排队，持锁者把节点直接交给下一个请求（最多连续 ${MAX_HANDOFF_STREAK} 次）。`,
          },
        },
      ),
      ...withLinedRow(
        {
          name: 'zk-reentrant',
          family,
          course: '§3.5',
          description: {
            en: 'zk-watch, reentrant per request (count per owner in process); the critical section re-enters once. One node per request.',
            zh: '可重入的 zk-watch，按请求重入（每个持锁者的次数记在进程内）；临界区会再进入一次。每个请求一个节点。',
          },
          expected,
          lock: new ZkReentrantLock(session, new ZkWatchLock(session)),
          scope: withLockReentered,
          faultLab: true,
        },
        {
          lock: new ZkReentrantLock(session, linedWatch()),
          description: {
            en: 'zk-watch+line (zk-watch behind a process line), reentrant per request (count per owner in process); the critical section re-enters once. One node per instance.',
            zh: '可重入的 zk-watch+line（在进程内排队的 zk-watch），按请求重入（每个持锁者的次数记在进程内）；临界区会再进入一次。每个实例只排一个节点。',
          },
        },
      ),
      {
        name: 'zk-semaphore-mutex',
        family,
        course: '§3.7',
        description: {
          en: "Curator's InterProcessSemaphoreMutex: a semaphore of one lease (a gate mutex, then a lease node counted against 1); not reentrant.",
          zh: 'Curator 的 InterProcessSemaphoreMutex：只有一个租约的信号量（先过一把门禁互斥锁，再创建一个租约节点，以 1 为上限计数）；不可重入。',
        },
        expected,
        lock: new ZkSemaphoreMutex(session),
      },
      {
        name: 'zk-rw-write',
        family,
        course: '§3.7',
        description: {
          en: "Curator's InterProcessReadWriteLock, deducting under its write lock: a __WRIT__ node waits for every node ahead (readers wait only for writers).",
          zh: 'Curator 的 InterProcessReadWriteLock，在写锁下扣减库存：__WRIT__ 节点要等前面所有节点（读锁只等写锁）。',
        },
        expected,
        lock: new ZkReadWriteLock(session).writeLock,
      },
      {
        name: 'zk-multi',
        family,
        course: '§3.7',
        description: {
          en: "Curator's InterProcessMultiLock over the stock's lock and its warehouse's (each a zk-reentrant lock): both or neither.",
          zh: 'Curator 的 InterProcessMultiLock，同时锁住库存的锁和它所在仓库的锁（各是一把 zk-reentrant 锁）：要么都拿到，要么都不拿。',
        },
        expected,
        // Lined only: not the course's row (§3.7 is Curator's), and its two locks per request are where the line pays most.
        lock: new MultiLock(new ZkReentrantLock(session, linedWatch()), () => [WAREHOUSE_LOCK_RESOURCE]),
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
