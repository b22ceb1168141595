// Redisson's locks beyond the mutex that can guard the deduction (course §2.10): the fair lock and
// the multi-lock. GET /strategies lists them in the Redis family, after the hand-written locks they build on.
import { FairLock } from '../locks/redis/redisson/fair.js';
import { deleteLockKeys, hashLockKey } from '../locks/redis/keys.js';
import { MultiLock } from '../locks/redis/redisson/multi.js';
import { ReleaseNotifier } from '../locks/redis/wait/release-notifier.js';
import { WatchdogLock } from '../locks/redis/hash/watchdog.js';
import { connectMainRedis, connectRedlockMasters, waitReady } from '../redis-client/connect.js';
import { declareStrategies } from './declare.js';
import type { FamilyFactory } from './strategy.js';

/** The fair lock on the main Redis; the multi-lock's parts on the RedLock masters get connections of their own. */
export const redissonFamily: FamilyFactory = async (deps) => {
  const { config, redis } = deps;
  const subscriber = connectMainRedis(config, `${config.instanceId}:redisson-released`);
  // Not fatal when a server is down at start: each reconnects on its own; until then the fair lock's
  // waiters fall back to asking again, and redis-multi answers 503.
  const [masters] = await Promise.all([connectRedlockMasters(config, 'multi'), waitReady(subscriber, 2_000)]);
  const multi = new MultiLock([new WatchdogLock(redis), ...masters.map((m) => new WatchdogLock(m))]);
  // Measured by the tests (test/integration/redisson.test.ts): both renew their leases while held (the
  // watchdog), so work longer than ttlMs stays exact. The fault lab does not run them.
  return {
    strategies: declareStrategies(deps, [
      {
        name: 'redis-fair',
        family: 'redis',
        course: '§2.10.2',
        description: {
          en: 'Redisson’s fair lock: waiters line up in Redis by ticket and the lock goes to the first in line, woken alone by name; the watchdog renews the lease.',
          zh: 'Redisson 的公平锁：等待者在 Redis 里按号排队，锁交给排在最前面的那一个，只按名字唤醒它；看门狗自动续期。',
        },
        expected: {
          oneInstance: 'exact',
          threeInstances: 'exact',
          workOverTtl: 'exact',
          note: 'first come, first served across instances: each answer carries its ticket (queued) and grant (granted); a dead waiter holds the line up to 5 s',
        },
        lock: new FairLock(redis, new ReleaseNotifier(subscriber)),
        answer: async (held) => ({ ticket: { queued: held.extras.ticket, granted: Number(await held.fencingToken?.()) } }),
      },
      {
        name: 'redis-multi',
        family: 'redis',
        course: '§2.10.3',
        description: {
          en: `Redisson’s multi-lock: the watchdog lock on the main Redis plus one on each of the ${masters.length} RedLock masters, all or nothing, in one order; any part refused gives every part back.`,
          zh: `Redisson 的联锁：主 Redis 上的一把看门狗锁，加上 ${masters.length} 个红锁主节点上各一把，按同一顺序加锁，要么全部拿到，要么一把不留；任何一把被拒绝，就全部释放。`,
        },
        expected: {
          oneInstance: 'exact',
          threeInstances: 'exact',
          workOverTtl: 'exact',
          note: 'every part must be had: one server down and it answers 503 (RedLock needs only a majority)',
        },
        lock: multi,
      },
    ]),
    // The main Redis's lock keys are the Redis family's to clear; these are the parts on the masters.
    clearLocks: async () => void (await Promise.all(masters.map((m) => deleteLockKeys(m, hashLockKey('*'))))),
    async close() {
      subscriber.disconnect();
      for (const m of masters) m.disconnect();
    },
  };
};
