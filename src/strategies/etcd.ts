// etcd's locks (beyond the course): the lock Kubernetes' own world uses, a lease-bound key queue
// ordered by create revision. Its concurrency recipe written here, the same recipe before the fix
// of etcd issue 11456, and the etcd3 package's own lock as the baseline a Node user would pick.
import type { Etcd3 } from 'etcd3';
import { callBound, clearEtcdLocks, openEtcd } from '../locks/etcd/client.js';
import { EtcdMutexLock, EtcdMutexNoRecheckLock } from '../locks/etcd/mutex.js';
import { LibEtcd3Lock } from '../locks/library/etcd3-lock.js';
import { declareStrategies } from './declare.js';
import type { FamilyFactory, OwnDeduction, SharedDeps, StrategyFamily } from './strategy.js';

/** How long GET /health waits for etcd's answer. */
const HEALTH_MS = 1_000;

/** Each lock keeps its lease alive while held, and the holder's write checks it still holds. */
const expected = (note: string): OwnDeduction['expected'] => ({ oneInstance: 'exact', threeInstances: 'exact', workOverTtl: 'exact', note });

/** The etcd strategies over one client. */
export function etcdStrategies(client: Etcd3, deps: SharedDeps): StrategyFamily {
  const family = 'etcd';
  return {
    strategies: declareStrategies(deps, [
      {
        name: 'etcd-lock',
        family,
        course: 'beyond the course',
        description: {
          en: "etcd's concurrency Mutex: put <prefix>/<lease id> under a lease kept alive at ttl/3; the key with the lowest create revision holds the lock; each waiter watches only the key created just before its own, then checks its own key is still there. The create revision is the fencing token.",
          zh: 'etcd 的 concurrency Mutex：在一个每隔 ttl/3 续约的租约下写入 <前缀>/<租约 ID>；创建版本号（create revision）最小的键持有锁；每个等待者只监听比自己早创建的前一个键，醒来后再确认自己的键还在。创建版本号就是 fencing token。',
        },
        expected: expected(
          "a crashed holder's key vanishes with its lease: after ttlMs rounded up to whole seconds (etcd may lengthen a short one to its minimum lease TTL)",
        ),
        // The fault lab measures it (holder-crash, holder-pause, etcd-lease): GET /strategies declares what it expects.
        faultLab: { wholeSecondLeases: true },
        lock: new EtcdMutexLock(client),
      },
      {
        name: 'etcd-lock-no-recheck',
        family,
        course: 'beyond the course',
        description: {
          en: 'etcd-lock as etcd shipped it before issue 11456: after the wait, it does not check that its own key is still there.',
          zh: 'etcd 修复 issue 11456 之前的 etcd-lock：等待结束后不再确认自己的键是否还在。',
        },
        expected: expected(
          'exact while every waiter keeps its lease; a waiter whose lease expires while it waits (a paused process, a keep-alive that cannot reach etcd) has lost its key, yet is told it holds the lock once the keys before it are gone, and the next acquirer holds it too: two holders, an oversell',
        ),
        faultLab: { wholeSecondLeases: true },
        lock: new EtcdMutexNoRecheckLock(client),
      },
      {
        name: 'lib-etcd3-lock',
        family,
        course: 'beyond the course',
        description: {
          en: "The etcd3 package's own lock (client.lock(name)) with the request's ttl in whole seconds: one put if the key was never created, under a lease it keeps alive; taken, stocklab retries every retryMs.",
          zh: 'etcd3 库自带的锁（client.lock(name)），租约 TTL 取请求的 ttl（向上取整到秒）：键不存在时写入一次，租约由库自动续约；锁被占用时 stocklab 每隔 retryMs 重试。',
        },
        expected: expected(
          'a spin lock (unfair), with no fencing token; the package never reports a lost lease, and its release does not say whether the key was still ours',
        ),
        lock: new LibEtcd3Lock(client),
      },
    ]),
    clearLocks: () => clearEtcdLocks(client),
    health: async () => ({ etcd: await reachable(client) }),
    close: async () => client.close(),
  };
}

async function reachable(client: Etcd3): Promise<boolean> {
  try {
    await client.maintenance.status(callBound(Date.now() + HEALTH_MS));
    return true;
  } catch {
    return false;
  }
}

export const etcdFamily: FamilyFactory = async (deps) => etcdStrategies(openEtcd(deps.config.etcd.endpoints), deps);
