// Redisson's locks beyond the mutex that can guard the deduction (course §2.10): the fair lock and
// the multi-lock, in the Redis family beside the hand-written locks they build on.
import { FairLock } from '../locks/redis/fair.js';
import { deleteLockKeys, hashLockKey } from '../locks/redis/keys.js';
import { MultiLock } from '../locks/redis/multi.js';
import type { ReleaseNotifier } from '../locks/redis/release-notifier.js';
import { WatchdogLock } from '../locks/redis/watchdog.js';
import type { Lock } from '../locks/lock.js';
import { connectRedlockMasters } from '../redis/connect.js';
import { guarded, lockedStrategy } from './guarded.js';
import type { DeductResult, SharedDeps, Strategy, StrategyFamily } from './strategy.js';

/**
 * Measured by the tests (test/integration/redisson.test.ts): both renew their leases while held (the
 * watchdog), so work longer than ttlMs stays exact. No `faults`: the fault lab does not run them.
 */
function redissonStrategy(deps: SharedDeps, name: string, description: string, note: string, lock: Lock): Strategy {
  return lockedStrategy(deps, lock, { name, family: 'redis', description, expected: { oneInstance: 'exact', threeInstances: 'exact', workOverTtl: 'exact', note } });
}

/** redis-fair: the deduction under the fair lock, its answer carrying the grant's place in line. */
function fairStrategy(deps: SharedDeps, lock: FairLock): Strategy {
  const strategy = redissonStrategy(deps, 'redis-fair',
    'Redisson’s fair lock: waiters line up in Redis by ticket and the lock goes to the first in line, woken alone by name; the watchdog renews the lease.',
    'first come, first served across instances: each answer carries its ticket (queued) and grant (granted); a dead waiter holds the line up to 5 s',
    lock);
  return {
    ...strategy,
    deduct: async (req): Promise<DeductResult> => {
      let ticket: DeductResult['ticket'];
      // The lock of this one request, noting the ticket of the lease it hands to the deduction.
      const noting: Lock = {
        fencing: lock.fencing,
        acquire: async (resource, opts) => {
          const lease = await lock.acquire(resource, opts);
          ticket = { queued: lease.ticket, granted: Number(await lease.fencingToken()) };
          return lease;
        },
      };
      const result = await guarded(noting, deps).deduct(req);
      return ticket ? { ...result, ticket } : result;
    },
  };
}

/** The fair lock and the multi-lock; the multi-lock's parts on the RedLock masters get connections of their own. */
export async function redissonLockStrategies(deps: SharedDeps, notifier: ReleaseNotifier): Promise<Required<Pick<StrategyFamily, 'strategies' | 'clearLocks' | 'close'>>> {
  const { config, redis } = deps;
  // Not fatal when a master is down at start: it reconnects on its own, and until then redis-multi answers 503.
  const masters = await connectRedlockMasters(config, 'multi');
  const multi = new MultiLock([new WatchdogLock(redis), ...masters.map((m) => new WatchdogLock(m))]);
  return {
    strategies: [
      fairStrategy(deps, new FairLock(redis, notifier)),
      redissonStrategy(deps, 'redis-multi',
        `Redisson’s multi-lock: the watchdog lock on the main Redis plus one on each of the ${masters.length} RedLock masters, all or nothing, in one order; any part refused gives every part back.`,
        'every part must be had: one server down and it answers 503 (RedLock needs only a majority)',
        multi),
    ],
    // The main Redis's lock keys are the family's to clear; these are the parts on the masters.
    clearLocks: async () => void (await Promise.all(masters.map((m) => deleteLockKeys(m, hashLockKey('*'))))),
    async close() {
      for (const m of masters) m.disconnect();
    },
  };
}
