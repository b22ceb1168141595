// The Redis chapter of the course (§1.8, §2): WATCH/MULTI, the hand-written locks in the order
// the course refines them, and one Lua check-and-decrement beyond it.
import { LockTimeoutError } from '../locks/errors.js';
import type { Lock } from '../locks/lock.js';
import { withLockReentered } from '../locks/reenter-once.js';
import { withLock } from '../locks/scope.js';
import { deleteLockKeys } from '../locks/redis/keys.js';
import { OwnedLock } from '../locks/redis/owned.js';
import { PubsubLock } from '../locks/redis/pubsub.js';
import { MAX_HANDOFF_STREAK } from '../locks/handoff.js';
import { ReentrantLock } from '../locks/redis/reentrant.js';
import { ReleaseNotifier } from '../locks/redis/release-notifier.js';
import { SetnxExpiryLock } from '../locks/redis/setnx-expiry.js';
import { SetnxLock } from '../locks/redis/setnx.js';
import { WatchdogLock } from '../locks/redis/watchdog.js';
import { connectMainRedis, waitReady } from '../redis/connect.js';
import { ConnectionPool } from '../redis/pool.js';
import { luaDecrement, watchedDecrement } from '../stock/redis-atomic.js';
import { lockedStrategy } from './guarded.js';
import { redissonLockStrategies } from './redisson.js';
import { retryOnConflict } from './retry.js';
import type { FamilyFactory, FaultOutcomes, Outcome, SharedDeps, Strategy } from './strategy.js';

/**
 * WATCH needs a connection per transaction in flight. A few per instance suffice: more would only
 * add transactions that abort each other on the one hot key.
 */
const WATCH_POOL_SIZE = 8;

/** A lock over the shared read-then-write. At the default workMs 0 every one is exact; `note` says where it breaks. */
function lockStrategy(deps: SharedDeps, name: string, description: string, note: string, workOverTtl: Outcome, lock: Lock, scope = withLock): Strategy {
  // Without a lease (redis-setnx) a paused holder keeps the lock: the others wait, and nothing is sold twice.
  const leased = name !== 'redis-setnx';
  const faults: FaultOutcomes = {
    holderCrash: leased ? 'after ttlMs' : 'never',
    holderPause: leased ? 'oversells' : 'exact',
    holderPauseFenced: 'exact',
    lostReply: 'released by its owner',
  };
  const expected = { oneInstance: 'exact', threeInstances: 'exact', workOverTtl, note, faults } as const;
  return lockedStrategy(deps, lock, { name, family: 'redis', description, expected }, scope);
}

export const redisFamily: FamilyFactory = async (deps) => {
  const { config, redis } = deps;
  const connect = (role: string) => connectMainRedis(config, `${config.instanceId}:${role}`);
  const watchPool = new ConnectionPool(() => connect('watch'), WATCH_POOL_SIZE);
  const subscriber = connect('lock-released');
  // Not fatal when Redis is down at start: the connection keeps retrying, and waiters fall back to the holder's lease.
  await waitReady(subscriber, 2_000);
  const notifier = new ReleaseNotifier(subscriber);
  const redisson = await redissonLockStrategies(deps, notifier);

  const strategies: Strategy[] = [
    {
      name: 'redis-watch',
      family: 'redis',
      description: 'WATCH the Redis stock key, read, then MULTI/SET/EXEC; an aborted EXEC retries with jittered backoff.',
      expected: { oneInstance: 'exact', threeInstances: 'exact', note: 'optimistic: every conflict costs a retry, so it slows down as contention grows' },
      stores: ['redis'],
      deduct: async (req) => {
        const deadline = Date.now() + req.lock.waitMs;
        const noConnection = () => new LockTimeoutError('redis-watch connection', req.lock.waitMs);
        return watchPool.use(deadline, noConnection, async (conn) => ({
          outcome: await retryOnConflict(deadline, req.lock, () => watchedDecrement(conn, req.workMs, req.requestId)),
        }));
      },
    },
    lockStrategy(deps, 'redis-setnx', 'SETNX the lock key, read-then-write, DEL; losers sleep retryMs and retry. No expiry.',
      'a holder that crashes before its DEL blocks everyone for good (503 lock_timeout)',
      'exact', new SetnxLock(redis)),
    lockStrategy(deps, 'redis-setnx-ex', 'SET NX PX ttlMs, so a crashed holder’s lock expires; released by a blind DEL.',
      'exact while work < ttl; when work > ttl a late DEL deletes the next holder’s lock and it oversells',
      'oversells', new SetnxExpiryLock(redis)),
    lockStrategy(deps, 'redis-owned', 'SET NX PX with the request’s unique token; Lua deletes the lock only if it still holds that token.',
      'never deletes another’s lock, but still oversells when work > ttl (the lease runs out mid-work)',
      'oversells', new OwnedLock(redis)),
    lockStrategy(deps, 'redis-reentrant', 'A Lua hash lock (owner → hold count); each request takes it twice, as nested code would.',
      'reentrant within one request; the lease can still run out when work > ttl',
      'oversells', new ReentrantLock(redis), withLockReentered),
    lockStrategy(deps, 'redis-watchdog', 'The reentrant hash lock plus a watchdog renewing the lease every ttl/3 while it is held.',
      'exact also when work > ttl; a crashed holder’s lock still expires after ttl',
      'exact', new WatchdogLock(redis)),
    lockStrategy(deps, 'redis-pubsub', `The reentrant hash lock; waiters sleep until a release is published or the holder’s lease ends. A holder passes the lock straight to a sleeping waiter of its own instance, in one script (at most ${MAX_HANDOFF_STREAK} times in a row).`,
      'Redisson-style waiting: no polling interval',
      'oversells', new PubsubLock(redis, notifier)),
    ...redisson.strategies,
    {
      name: 'redis-lua-decr',
      family: 'redis',
      description: 'The check and the decrement as one Lua script on the Redis stock key: no lock, no retry.',
      expected: { oneInstance: 'exact', threeInstances: 'exact', note: 'beyond the course: Redis runs a script atomically' },
      stores: ['redis'],
      deduct: async (req) => ({ outcome: await luaDecrement(redis, req.workMs, req.requestId) }),
    },
  ];

  return {
    strategies,
    clearLocks: async () => {
      await Promise.all([deleteLockKeys(redis), redisson.clearLocks()]);
    },
    async close() {
      watchPool.close();
      subscriber.disconnect();
      await redisson.close();
    },
  };
};
