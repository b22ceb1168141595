// The gallery: each incident as its thread reports it, and how the lab builds it.
import { etcd3BesideLockRpc, labEtcdBesideLockRpc } from './etcd3.js';
import { DESIGN_INCIDENTS, watchdogFenced, watchdogUnfenced } from './designs.js';
import type { Incident } from './incident.js';
import { JAVA_DESIGN_INCIDENTS } from './java-designs.js';
import { advisoryLockBehindBouncer, labSessionBehindBouncer, labXactBehindBouncer } from './pgbouncer.js';
import { betaExpiredAcquire, fixedExpiredAcquire, labRedlockAcquire } from './redlock.js';
import { labWatchdogReleaseDuringRenewal, lateRefreshOn, releaseDuringRefreshOn, twoHoldersOn } from './redis-semaphore.js';

export const INCIDENTS: readonly Incident[] = [
  {
    id: 'redis-semaphore-175',
    library: 'redis-semaphore (Mutex)',
    reported: { repo: 'swarthy/redis-semaphore', refs: ['#175'], fixedBy: { en: 'PR #177, released in 5.3.1', zh: 'PR #177，5.3.1 发布' } },
    symptom: {
      en: 'A refresh that runs late, after another client took and released the lock, silently re-acquires it: "mutual exclusion was not in fact guaranteed".',
      zh: '续期来迟了：别的客户端已经拿到并释放了锁之后，它悄悄把锁又拿了回来，“互斥其实没有得到保证”。',
    },
    built: {
      en: "A: lockTimeout 500 ms, refreshInterval 1500 ms (a holder stalled between refreshes). Once Redis has expired A's key, B acquires and releases; the lab then waits for A's refresh and reads the key.",
      zh: 'A：lockTimeout 500 ms、refreshInterval 1500 ms（持锁者在两次续期之间停住）。Redis 让 A 的键过期之后，B 加锁再释放；然后等 A 的续期发生，读这个键。',
    },
    affected: lateRefreshOn('redis-semaphore-5.3.0'),
    fixed: lateRefreshOn('redis-semaphore'),
    lab: [watchdogUnfenced, watchdogFenced],
  },
  {
    id: 'redis-semaphore-9-24',
    library: 'redis-semaphore (Mutex)',
    reported: { repo: 'swarthy/redis-semaphore', refs: ['#9', '#24'] },
    symptom: {
      en: 'An event loop blocked past lockTimeout (a breakpoint, a laptop out of standby): another instance gets the lock, "multiple instances are doing the same job", and the first learns only from a late "Lost mutex" error.',
      zh: '事件循环被阻塞超过 lockTimeout（断点、笔记本从待机中醒来）：另一个实例拿到了锁，“多个实例在做同一件事”，而第一个实例直到一个迟到的 “Lost mutex” 错误才知道。',
    },
    built: {
      en: "A stalls as above; once its key has expired, B acquires. Both report isAcquired; the lab times A's onLockLost from B's acquire. By design: no version fixes it (no fencing token).",
      zh: 'A 同上停住；它的键过期后 B 加锁。两者的 isAcquired 都为真；从 B 拿到锁起计时，直到 A 的 onLockLost。这是设计使然：没有哪个版本修复它（没有防护令牌）。',
    },
    affected: twoHoldersOn('redis-semaphore'),
    lab: [watchdogUnfenced, watchdogFenced],
  },
  {
    id: 'redis-semaphore-205',
    library: 'redis-semaphore (Mutex)',
    reported: { repo: 'swarthy/redis-semaphore', refs: ['#205'], fixedBy: { en: 'PR #206, released in 5.5.1', zh: 'PR #206，5.5.1 发布' } },
    symptom: {
      en: 'A refresh already under way when release() runs comes back after it and reports the lock lost: "all of the workers simultaneously crash with Lock Lost errors".',
      zh: 'release() 执行时已经发出的续期在它之后才回来，报告锁丢了：“所有 worker 同时因 Lock Lost 错误崩溃”。',
    },
    built: {
      en: "A: lockTimeout 10 s, refreshInterval 100 ms. The lab holds A's first refresh (its EVALSHA) back, lets release() finish, then lets the refresh through and waits for its answer.",
      zh: 'A：lockTimeout 10 s、refreshInterval 100 ms。扣住 A 的第一次续期（它的 EVALSHA），等 release() 完成，再放行这次续期并等它的结果回来。',
    },
    affected: releaseDuringRefreshOn('redis-semaphore-5.5.0'),
    fixed: releaseDuringRefreshOn('redis-semaphore'),
    lab: [labWatchdogReleaseDuringRenewal],
  },
  {
    id: 'redlock-296',
    library: 'redlock (node-redlock)',
    reported: {
      repo: 'mike-marcacci/node-redlock',
      refs: ['#296', '#283', '#299', '#169'],
      fixedBy: {
        en: 'PRs #274 and #276, merged, never released; published in the fork @sesamecare-oss/redlock',
        zh: 'PR #274 和 #276 已合并但从未发布；分支 @sesamecare-oss/redlock 发布了它们',
      },
    },
    symptom: {
      en: 'With retryCount > 0, acquire() can return a lock that has already expired; using() then fails at once with "Cannot extend an already-expired lock".',
      zh: 'retryCount > 0 时，acquire() 可能返回一把已经过期的锁；using() 随即失败：“Cannot extend an already-expired lock”。',
    },
    built: {
      en: "Another holder's key stands for 1500 ms; acquire(duration 1000 ms, retryCount 20, retryDelay 200 ms, no jitter) wins on the attempt after it goes. The lab reads the lock's expiration, Redis's PTTL, and tries extend().",
      zh: '另一个持锁者的键保留 1500 ms；acquire（duration 1000 ms，retryCount 20，retryDelay 200 ms，无抖动）在键消失后的那次尝试中拿到锁。读取锁的 expiration 和 Redis 的 PTTL，再试一次 extend()。',
    },
    affected: betaExpiredAcquire,
    fixed: fixedExpiredAcquire,
    lab: [labRedlockAcquire],
  },
  {
    id: 'etcd3-75',
    library: 'etcd3 (npm)',
    reported: { repo: 'microsoft/etcd3', refs: ['#75'] },
    symptom: {
      en: '"If I take lock on mylock2 key using etcdctl and then try to take lock using this library on the same key, both of them goes through."',
      zh: '“用 etcdctl 对 mylock2 加锁，再用这个库对同一个键加锁，两个都成功了。”',
    },
    built: {
      en: "etcd's Lock RPC (what etcdctl lock calls, through etcd's HTTP gateway) takes a name; then the package's lock on the same name. Unchanged in the current version.",
      zh: '先用 etcd 的 Lock RPC（etcdctl lock 调用的就是它，这里经 etcd 的 HTTP 网关）锁住一个名字，再用这个包对同一个名字加锁。当前版本仍是如此。',
    },
    affected: etcd3BesideLockRpc,
    lab: [labEtcdBesideLockRpc],
  },
  {
    id: 'pgbouncer-102-418',
    library: 'advisory-lock (npm) behind PgBouncer',
    reported: { repo: 'pgbouncer/pgbouncer', refs: ['#102', '#418', '#617'] },
    symptom: {
      en: 'In transaction pooling, "the lock is not always released when the client rollbacks" (#102, since 1.7 no DISCARD ALL between clients in that mode), and a lock left by a client that disconnected stays with a server connection that is "used by multiple transaction connections" (#418). Closed as configuration: session locks do not work in transaction pooling (#617 asked for it in the docs).',
      zh: '事务池模式下，“客户端回滚时锁并不总是被释放”（#102，1.7 起这种模式下客户端之间不再执行 DISCARD ALL）；一个断开的客户端留下的锁停留在某个服务端连接上，而这个连接“被多个事务连接使用”（#418）。作为配置问题关闭：会话级锁在事务池模式下不能用（#617 要求写进文档）。',
    },
    built: {
      en: "A PgBouncer 1.18 (Debian's) in front of the cluster's PostgreSQL: transaction pooling, two server connections, its defaults otherwise. A takes the package's lock and its statement ends; B's tryLock on the same name; B unlocks. A third client opens a transaction, which takes the server A's lock lives on (the one used last); A unlocks (its statement runs on the other server); the transaction ends; a direct client tries the lock. The lab's two PostgreSQL locks from two pools (two instances) on the same PgBouncer: A holds, B asks.",
      zh: '在集群的 PostgreSQL 前面放一个 PgBouncer 1.18（Debian 的）：事务池模式，两个服务端连接，其余用默认值。A 用这个包加锁，它的语句结束；B 对同一个名字 tryLock；B 解锁。第三个客户端开启一个事务，占住 A 的锁所在的那个服务端连接（最近用过的那个）；A 解锁（它的语句在另一个服务端连接上执行）；事务结束；一个直连的客户端来试这把锁。实验台的两种 PostgreSQL 锁，从两个连接池（两个实例）经同一个 PgBouncer：A 持锁，B 来加锁。',
    },
    affected: advisoryLockBehindBouncer,
    lab: [labSessionBehindBouncer, labXactBehindBouncer],
  },
  ...DESIGN_INCIDENTS,
  ...JAVA_DESIGN_INCIDENTS,
];
