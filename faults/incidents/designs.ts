// The gallery's incidents whose library the lab cannot run (Java's Redisson, Python's pals) or whose
// report names a design rather than a version (etcd's Lock recipe, node-redlock's own warning): each
// is the reported design as the lab builds it in TypeScript, under the fault of the report, through
// the service, beside the lab's lock of the same family that holds. The cases are the fault lab's.
import { pauseCase } from '../scenarios/holder-pause.js';
import { waiterRevokedCase } from '../scenarios/etcd-lease.js';
import { holderCutCase } from '../scenarios/partition.js';
import { pooledCase } from '../scenarios/pg-session.js';
import { redlockCase, singleMasterCase } from '../scenarios/redis-failover.js';
import type { FaultRow } from '../row.js';
import { sessionExpiredHeeded, sessionExpiredUnheeded } from './curator.js';
import { answerOf, faultLabTrial } from './fault-lab-trial.js';
import type { Incident, Words } from './incident.js';

const oversoldAny = (row: FaultRow) => row.oversold > 0;
/** A role's answers, as "200 ×2, 503 lock_timeout ×1". */
const answersText = (answers: Record<string, number> | undefined) =>
  Object.entries(answers ?? {})
    .map(([key, n]) => `${key} ×${n}`)
    .join(', ') || 'none';

/**
 * The lab's redis-watchdog (a lease renewed every ttl/3 while held: Redisson's watchdog, and
 * redis-semaphore's refresh) with its holder frozen past its lease, as the fault lab's holder-pause
 * builds it: the two holders the reports describe, and what fenced=1 does about them.
 */
function watchdogFrozen(fencing: 'unfenced' | 'fenced') {
  return faultLabTrial(`redis-watchdog${fencing === 'fenced' ? ', fenced=1' : ''}`, (ctx) => pauseCase(ctx, 'redis-watchdog', fencing, 'mysql'), {
    reproduced: oversoldAny,
    facts: (row) => ({ holder: answerOf(row, 'holder') }),
    measured: (row): Words => {
      const sold = row.byRole.sell?.['200'] ?? 0;
      const holder = answerOf(row, 'holder');
      return {
        en: `holder frozen past its lease, ${sold} sold by the others meanwhile; the holder answered ${holder}; oversold ${row.oversold}`,
        zh: `持锁者冻结超过租约，期间其他实例卖出 ${sold} 件；持锁者的回答 ${holder}；超卖 ${row.oversold}`,
      };
    },
  });
}

export const watchdogUnfenced = watchdogFrozen('unfenced');
export const watchdogFenced = watchdogFrozen('fenced');

/** etcd's lock recipe with and without its check after the wait, a waiter's lease revoked while it waits. */
function etcdWaiterRevoked(strategy: 'etcd-lock' | 'etcd-lock-no-recheck', fencing: 'unfenced' | 'fenced') {
  return faultLabTrial(`${strategy}${fencing === 'fenced' ? ', fenced=1' : ''}`, (ctx) => waiterRevokedCase(ctx, strategy, fencing), {
    reproduced: oversoldAny,
    measured: (row): Words => {
      const waiter = answerOf(row, 'waiter');
      const told = row.facts.waiterToldItHolds === true;
      return {
        en: `the waiter${told ? ', told it holds the lock beside the next acquirer,' : ''} answered ${waiter}; the next acquirer ${answerOf(row, 'next')}; oversold ${row.oversold}`,
        zh: `等待者${told ? '被告知与下一个加锁者同时持锁，' : ''}回答 ${waiter}；下一个加锁者 ${answerOf(row, 'next')}；超卖 ${row.oversold}`,
      };
    },
  });
}

/** A holder cut from Redis (not from MySQL) while it holds, its work past its lease: the fault lab's partition case. */
function cutFromRedis(strategy: 'redis-owned' | 'redis-watchdog', fencing: 'unfenced' | 'fenced') {
  return faultLabTrial(`${strategy}${fencing === 'fenced' ? ', fenced=1' : ''}`, (ctx) => holderCutCase(ctx, strategy, fencing), {
    reproduced: oversoldAny,
    facts: (row) => ({ holder: answerOf(row, 'holder') }),
    measured: (row): Words => {
      const sold = row.byRole.sell?.['200'] ?? 0;
      const holder = answerOf(row, 'holder');
      return {
        en: `holder cut from Redis while it held, ${sold} sold by the others meanwhile; the holder answered ${holder}; oversold ${row.oversold}`,
        zh: `持锁者持锁时与 Redis 断网，期间其他实例卖出 ${sold} 件；持锁者的回答 ${holder}；超卖 ${row.oversold}`,
      };
    },
  });
}

/** Two requests of one instance through one pool while the first holds PostgreSQL's advisory lock. */
function pooledTwice(strategy: 'pg-advisory-session' | 'pg-advisory-xact') {
  return faultLabTrial(strategy, (ctx) => pooledCase(ctx, strategy), {
    reproduced: oversoldAny,
    measured: (row): Words => {
      const second = answerOf(row, 'second');
      return {
        en: `a second request on the holder's instance answered ${second} while the first held the lock; another instance's ${answerOf(row, 'other')}; oversold ${row.oversold}`,
        zh: `持锁期间，同一实例上的第二个请求回答 ${second}；另一个实例上的请求 ${answerOf(row, 'other')}；超卖 ${row.oversold}`,
      };
    },
  });
}

/** A lock on one Redis master whose failover loses it, beside RedLock's five masters under the same kill. */
const failover = (name: string, run: typeof singleMasterCase, fault: Words) =>
  faultLabTrial(name, run, {
    reproduced: oversoldAny,
    measured: (row): Words => {
      const holders = answersText(row.byRole.holder);
      return {
        en: `A holds, ${fault.en}, then B asks: A and B answered ${holders}; oversold ${row.oversold}`,
        zh: `A 持锁，${fault.zh}，然后 B 来加锁：A 和 B 的回答 ${holders}；超卖 ${row.oversold}`,
      };
    },
  });

export const DESIGN_INCIDENTS: readonly Incident[] = [
  {
    id: 'redisson-2665-5698',
    library: 'Redisson RLock (Java)',
    reported: { repo: 'redisson/redisson', refs: ['#2665', '#5698'] },
    symptom: {
      en: 'The watchdog stops renewing while the JVM is frozen or its CPU saturated ("some threads could be suspended including lock watchdog thread"): the lease runs out and another worker takes the lock while the first still works.',
      zh: 'JVM 被冻住或 CPU 打满时看门狗停止续期（“包括看门狗线程在内的一些线程可能被挂起”）：租约到期，另一个 worker 在第一个还在干活时拿到了锁。',
    },
    built: {
      en: "Not the Java library: the lab's redis-watchdog renews its lease every ttl/3 while held, as Redisson's watchdog does. Its holder is frozen (SIGSTOP) right before its write, past its lease, as the fault lab's holder-pause does; the others sell meanwhile; then it resumes and writes.",
      zh: '不是 Java 库本身：实验台的 redis-watchdog 在持锁期间每 ttl/3 续期一次，和 Redisson 的看门狗一样。持锁者在写入前被冻结（SIGSTOP），超过租约，和故障实验的 holder-pause 一样；期间其他实例继续卖；然后它恢复并写入。',
    },
    affected: watchdogUnfenced,
    lab: [watchdogFenced],
  },
  {
    id: 'redisson-3636',
    library: 'Redisson RLock (Java)',
    topology: 'hosts',
    reported: { repo: 'redisson/redisson', refs: ['#3636'] },
    symptom: {
      en: 'A worker loses its connection to Redis but not to its database and keeps working; its watchdog cannot renew, the lock expires, a second worker takes it: "both Worker1 and Worker2 now think they are holding the lock".',
      zh: '一个 worker 与 Redis 断了连接、与数据库没断，于是继续干活；它的看门狗无法续期，锁过期，第二个 worker 拿到锁：“Worker1 和 Worker2 都认为自己持有这把锁”。',
    },
    built: {
      en: "Not the Java library: the hosts topology (a network namespace per server) cuts the holder's instance from Redis while it holds, its 6 s of work past its 1 s lease; the others sell meanwhile. redis-owned keeps working, as the report's worker does; the lab's redis-watchdog takes its failed renewal as a lost lock and refuses its own write; fenced=1 has the store refuse it.",
      zh: '不是 Java 库本身：hosts 拓扑（每台服务器一个网络命名空间）在持锁者持锁时切断它所在实例与 Redis 的链路，它 6 s 的业务超过 1 s 的租约；期间其他实例继续卖。redis-owned 照样干活，和报告里的 worker 一样；实验台的 redis-watchdog 把续期失败当作丢锁，拒绝自己的写入；fenced=1 则由存储拒绝它。',
    },
    affected: cutFromRedis('redis-owned', 'unfenced'),
    lab: [cutFromRedis('redis-watchdog', 'unfenced'), cutFromRedis('redis-owned', 'fenced')],
  },
  {
    id: 'curator-727',
    library: 'Curator InterProcessMutex (Java)',
    reported: { repo: 'apache/curator', refs: ['#727 (CURATOR-206)'] },
    symptom: {
      en: 'Disconnected long enough for its ephemeral node to expire, "the thread that has the lock will not get interrupted and still thinks it has the lock", and another client acquires it.',
      zh: '断网时间长到它的临时节点过期，“持锁的线程不会被打断，仍然以为自己持有锁”，而另一个客户端拿到了这把锁。',
    },
    built: {
      en: "Not the Java library: the lab's zk-watch lock (an ephemeral-sequential node, each waiter watching the one before it, as InterProcessMutex) with two sessions of the lab's own. A holds; a second client attaches to A's session and closes it, so ZooKeeper expires it and deletes A's node; B asks for the lock. A's code, as in the report, never looks at lease.lost. Then the fault lab's zk-session-expiry through the service, where the holder heeds it (Curator's rule: SUSPENDED or LOST means the lock may be gone).",
      zh: '不是 Java 库本身：实验台的 zk-watch 锁（临时顺序节点，每个等待者监听前一个节点，和 InterProcessMutex 一样），用实验台自己开的两个会话。A 持锁；第二个客户端接管 A 的会话再关闭它，于是 ZooKeeper 让会话过期并删掉 A 的节点；B 来加锁。A 的代码和报告里一样，从不查看 lease.lost。然后是故障实验的 zk-session-expiry，经过服务，持锁者会理会这个信号（Curator 的规则：SUSPENDED 或 LOST 就意味着锁可能已经没了）。',
    },
    affected: sessionExpiredUnheeded,
    lab: [sessionExpiredHeeded],
  },
  {
    id: 'etcd-11456',
    library: 'etcd concurrency.Mutex (Go)',
    reported: { repo: 'etcd-io/etcd', refs: ['#11456', "Jepsen's etcd 3.4.3 analysis (2020)"] },
    symptom: {
      en: 'A waiter whose lease expires while it waits is still told it holds the lock once its turn comes: the recipe does not check that its own key still exists, so two clients hold the lock at once.',
      zh: '等待者在排队时租约过期，轮到它时仍被告知拿到了锁：这个配方不检查自己的键是否还在，于是两个客户端同时持锁。',
    },
    built: {
      en: "The holder stops before its write; a waiter queues behind it and the lab revokes the waiter's lease; a next acquirer queues; the holder writes and releases. etcd-lock-no-recheck is the recipe without the check after the wait, etcd-lock the lab's with it.",
      zh: '持锁者停在写入之前；一个等待者排到它后面，实验台撤销等待者的租约；下一个加锁者排队；持锁者写入并释放。etcd-lock-no-recheck 是等待之后不再检查的配方，etcd-lock 是实验台带检查的版本。',
    },
    affected: etcdWaiterRevoked('etcd-lock-no-recheck', 'unfenced'),
    lab: [etcdWaiterRevoked('etcd-lock', 'unfenced'), etcdWaiterRevoked('etcd-lock-no-recheck', 'fenced')],
  },
  {
    id: 'pals-14',
    library: 'pals (Python)',
    reported: { repo: 'level12/pals', refs: ['#14'] },
    symptom: {
      en: 'A session advisory lock is re-entrant per connection: "the lock can be acquired multiple times, but only released once". Code that shares a connection (a pool) is let in a second time.',
      zh: '会话级咨询锁在同一个连接上可重入：“锁可以拿到好几次，却只释放一次”。共用连接（连接池）的代码会被第二次放进来。',
    },
    built: {
      en: "A first request on app-0 holds the lock and works 2 s; a second request on app-0 is handed the pool's connection whose session holds it; a request on app-1 tries meanwhile. pg-advisory-session takes pg_advisory_lock through the pool, pg-advisory-xact takes pg_advisory_xact_lock inside the transaction.",
      zh: 'app-0 上第一个请求持锁并干活 2 s；app-0 上第二个请求从连接池拿到的正是持锁会话的那个连接；同时 app-1 上也有一个请求来加锁。pg-advisory-session 通过连接池调用 pg_advisory_lock，pg-advisory-xact 在事务里调用 pg_advisory_xact_lock。',
    },
    affected: pooledTwice('pg-advisory-session'),
    lab: [pooledTwice('pg-advisory-xact')],
  },
  {
    id: 'redlock-sentinel',
    library: 'redlock (node-redlock)',
    topology: 'replicated',
    reported: { repo: 'mike-marcacci/node-redlock', refs: ['README, "Using Cluster/Sentinel"'] },
    symptom: {
      en: 'With one Redis and asynchronous replication, a master that crashes right after granting a lock fails over to a replica that never got it: "it becomes theoretically possible that a lock is acquired twice".',
      zh: '只有一个 Redis、复制是异步的：主节点刚发出一把锁就崩溃，主从切换到一个从没收到这把锁的从节点上，“一把锁理论上可能被拿到两次”。',
    },
    built: {
      en: "The lab's redis-owned (SET NX PX on the main Redis, found through Sentinel): A holds, replication to the replica is held back, the master is killed, Sentinel promotes the replica, B asks for the lock. Then the lab's redlock over five independent masters, one killed while A holds.",
      zh: '实验台的 redis-owned（在经 Sentinel 找到的主 Redis 上 SET NX PX）：A 持锁，暂停向从节点的复制，杀掉主节点，Sentinel 提升从节点，B 来加锁。然后是实验台在五个独立主节点上的 redlock，A 持锁时杀掉其中一个。',
    },
    affected: failover('redis-owned, one master + Sentinel', singleMasterCase, {
      en: 'its master is killed before the lock reaches the replica and Sentinel promotes the replica',
      zh: '它的主节点在锁同步到从节点之前被杀掉，Sentinel 提升了从节点',
    }),
    lab: [failover('redlock, five masters', redlockCase, { en: 'one of its five masters is killed', zh: '它的五个主节点之一被杀掉' })],
  },
];
