// The libraries a Node user would pick instead of writing a lock: the same read-then-write under
// each, with the request's ttl, wait and retry, so no row is a straw man (README: the strategies).
import { LIBRARY_KEY_PATTERN, LibMutexLock, LibRedlockMutexLock } from '../locks/library/redis-semaphore.js';
import { LibRedlockUsingLock } from '../locks/library/redlock-using.js';
import { deleteLockKeys, redlockKey } from '../locks/redis/keys.js';
import { Redlock } from '../locks/redis/redlock/package.js';
import { connectRedlockMasters } from '../redis-client/connect.js';
import { declareStrategies } from './declare.js';
import type { FamilyFactory, OwnDeduction } from './strategy.js';

/**
 * Measured by the tests (test/integration/library.test.ts): each renews its lease while held, and the lease
 * check before the write refuses what outlived it.
 */
const expected = (note: string): OwnDeduction['expected'] => ({ oneInstance: 'exact', threeInstances: 'exact', workOverTtl: 'exact', note });

export const libraryFamily: FamilyFactory = async (deps) => {
  const { config } = deps;
  // Connections of their own, so the libraries' traffic never queues behind stocklab's locks.
  const masters = await connectRedlockMasters(config, 'lib-redlock');
  const redlock = new Redlock(masters, { driftFactor: 0.01 });
  redlock.on('error', () => undefined);
  return {
    strategies: declareStrategies(deps, [
      {
        name: 'lib-redis-semaphore',
        family: 'library',
        course: 'beyond the course',
        description: {
          en: "redis-semaphore's Mutex on the main Redis: SET NX PX, polled every retryMs, refreshed at 0.8 × ttl.",
          zh: 'redis-semaphore 库的 Mutex，作用在主 Redis 上：SET NX PX，每隔 retryMs 轮询一次，到 0.8 × ttl 时续期。',
        },
        expected: expected('the most used Node lock library; no fencing token'),
        lock: new LibMutexLock(deps.redis),
      },
      {
        name: 'lib-redlock-mutex',
        family: 'library',
        course: 'beyond the course',
        description: {
          en: `redis-semaphore's RedlockMutex over the ${masters.length} RedLock masters, polled every retryMs.`,
          zh: `redis-semaphore 库的 RedlockMutex，作用在 ${masters.length} 个红锁主节点上，每隔 retryMs 轮询一次。`,
        },
        expected: expected('RedLock as redis-semaphore implements it'),
        lock: new LibRedlockMutexLock(masters),
      },
      {
        name: 'lib-redlock',
        family: 'library',
        course: 'beyond the course',
        description: {
          en: "The redlock package's own using(): its retry loop (retryMs plus jitter) and its automatic extension.",
          zh: 'redlock 库自带的 using()：用它自己的重试循环（retryMs 加随机抖动）和自动续期。',
        },
        expected: expected(
          "compare with redlock, the same package under stocklab's retry loop: its own retries keep a failed attempt's partial votes, and under heavy contention almost every request times out; needs ttlMs ≥ 200",
        ),
        lock: new LibRedlockUsingLock(redlock),
      },
    ]),
    clearLocks: async () => {
      await Promise.allSettled([deps.redis, ...masters].map((c) => deleteLockKeys(c, LIBRARY_KEY_PATTERN)));
      await Promise.allSettled(masters.map((c) => deleteLockKeys(c, redlockKey('lib:*'))));
    },
    async close() {
      for (const c of masters) c.disconnect();
    },
  };
};
