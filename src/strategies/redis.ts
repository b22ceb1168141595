// The Redis chapter of the course (§1.8, §2): WATCH/MULTI and the hand-written locks in the order
// the course refines them. Redisson's locks (redisson.ts) and the Lua decrement (redis-lua.ts) follow.
import { LockTimeoutError } from '../locks/errors.js';
import { withLockReentered } from '../locks/reenter-once.js';
import { deleteLockKeys } from '../locks/redis/keys.js';
import { OwnedLock } from '../locks/redis/string/owned.js';
import { OwnedGetDelLock } from '../locks/redis/string/owned-get-del.js';
import { PubsubLock } from '../locks/redis/hash/pubsub.js';
import { MAX_HANDOFF_STREAK } from '../locks/handoff.js';
import { ReentrantLock } from '../locks/redis/hash/reentrant.js';
import { ReleaseNotifier } from '../locks/redis/wait/release-notifier.js';
import { SetnxExpiryLock } from '../locks/redis/string/setnx-expiry.js';
import { SetnxLock } from '../locks/redis/string/setnx.js';
import { SetnxThenExpireLock } from '../locks/redis/string/setnx-then-expire.js';
import { SetnxGetsetLock } from '../locks/redis/string/setnx-getset.js';
import { lockClock } from '../locks/lock-clock.js';
import { WatchdogLock } from '../locks/redis/hash/watchdog.js';
import { connectMainRedis, waitReady } from '../redis-client/connect.js';
import { ConnectionPool } from '../redis-client/pool.js';
import { watchedDecrement } from '../stock/redis-atomic.js';
import { declareStrategies } from './declare.js';
import { retryOnConflict } from './retry.js';
import type { FamilyFactory } from './strategy.js';

/**
 * WATCH needs a connection per transaction in flight. A few per instance suffice: more would only
 * add transactions that abort each other on the one hot key.
 */
const WATCH_POOL_SIZE = 8;

export const redisFamily: FamilyFactory = async (deps) => {
  const { config, redis } = deps;
  const connect = (role: string) => connectMainRedis(config, `${config.instanceId}:${role}`);
  const watchPool = new ConnectionPool(() => connect('watch'), WATCH_POOL_SIZE);
  const subscriber = connect('lock-released');
  // Not fatal when Redis is down at start: the connection keeps retrying, and waiters fall back to the holder's lease.
  await waitReady(subscriber, 2_000);
  const notifier = new ReleaseNotifier(subscriber);
  // At the default workMs 0 every lock is exact; `note` says where it breaks. The fault lab measures each.
  const family = 'redis';

  return {
    strategies: declareStrategies(deps, [
      {
        name: 'redis-watch',
        family,
        course: '§1.8',
        description: {
          en: 'WATCH the Redis stock key, read, then MULTI/SET/EXEC; an aborted EXEC retries with jittered backoff.',
          zh: 'WATCH Redis 的库存 key，读取后 MULTI/SET/EXEC；EXEC 被打断就随机退避后重试（Redis 的乐观锁）。',
        },
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
      {
        name: 'redis-setnx',
        family,
        course: '§2.1',
        description: {
          en: 'SETNX the lock key, read-then-write, DEL; losers sleep retryMs and retry. No expiry.',
          zh: 'SETNX 加锁，先读后写，DEL 解锁；没抢到锁的请求睡眠 retryMs 后重试。锁没有过期时间。',
        },
        expected: {
          oneInstance: 'exact',
          threeInstances: 'exact',
          workOverTtl: 'exact',
          note: 'a holder that crashes before its DEL blocks everyone for good (503 lock_timeout)',
        },
        lock: new SetnxLock(redis),
        faultLab: { lostReplyCase: true },
      },
      {
        name: 'redis-setnx-expire',
        family,
        course: '§2.2',
        description: {
          en: 'SETNX the lock key, then PEXPIRE ttlMs as a second command; released by a blind DEL. The course’s first expiry, kept non-atomic.',
          zh: '先 SETNX 加锁，再用第二条命令 PEXPIRE ttlMs 设置过期时间；解锁时直接 DEL。这是课程里第一次防死锁，两条命令之间没有原子性。',
        },
        expected: {
          oneInstance: 'exact',
          threeInstances: 'exact',
          workOverTtl: 'oversells',
          note: 'a holder that dies between SETNX and EXPIRE leaves a lock with no expiry: every later request times out (503 lock_timeout) until a reset',
        },
        lock: new SetnxThenExpireLock(redis),
        faultLab: true,
      },
      {
        name: 'redis-setnx-ex',
        family,
        course: '§2.2',
        description: {
          en: 'SET NX PX ttlMs, so a crashed holder’s lock expires; released by a blind DEL.',
          zh: 'SET NX PX ttlMs，加锁和过期时间一步完成，持锁者宕机后锁会自动过期；解锁时直接 DEL，不判断是不是自己的锁。',
        },
        expected: {
          oneInstance: 'exact',
          threeInstances: 'exact',
          workOverTtl: 'oversells',
          note: 'exact while work < ttl; when work > ttl a late DEL deletes the next holder’s lock and it oversells',
        },
        lock: new SetnxExpiryLock(redis),
        faultLab: { lostReplyCase: true },
      },
      {
        name: 'redis-setnx-getset',
        family,
        course: '§2.2',
        description: {
          en: 'The value is the lock’s own expiry time on the acquirer’s clock: SETNX it; past that time, GETSET a new one and take the lock over if the old value came back. Released by a blind DEL (companions 002, 003 §2).',
          zh: '锁的值是按加锁者的时钟算出的过期时刻：先 SETNX；过了这个时刻，就用 GETSET 写入新的过期时刻，取回的还是旧值才算抢到锁。解锁时直接 DEL（配套讲义 002、003 §2）。',
        },
        expected: {
          oneInstance: 'exact',
          threeInstances: 'exact',
          workOverTtl: 'oversells',
          note: 'needs every clock to agree: an instance whose clock is ahead by more than the lease takes a live lock, and the blind DEL removes the next holder’s lock',
        },
        lock: new SetnxGetsetLock(redis, lockClock),
        faultLab: true,
      },
      {
        name: 'redis-owned-get-del',
        family,
        course: '§2.3',
        description: {
          en: 'SET NX PX with the request’s unique token; the release GETs the value, compares it in application code, then DELs: two commands.',
          zh: 'SET NX PX 时写入本次请求的唯一标识（防误删）；解锁时先 GET、在应用代码里比较，再 DEL：两条命令，判断和删除之间没有原子性。',
        },
        expected: {
          oneInstance: 'exact',
          threeInstances: 'exact',
          workOverTtl: 'oversells',
          note: 'a lease that ends between the GET and the DEL lets the DEL remove the next holder’s lock, and a third request enters while the second still works',
        },
        lock: new OwnedGetDelLock(redis),
        faultLab: true,
      },
      {
        name: 'redis-owned',
        family,
        course: '§2.3–2.5',
        description: {
          en: 'SET NX PX with the request’s unique token; Lua deletes the lock only if it still holds that token.',
          zh: 'SET NX PX 时写入本次请求的唯一标识；由 Lua 脚本判断锁还是自己的才删除，判断和删除具有原子性。',
        },
        expected: {
          oneInstance: 'exact',
          threeInstances: 'exact',
          workOverTtl: 'oversells',
          note: 'never deletes another’s lock, but still oversells when work > ttl (the lease runs out mid-work)',
        },
        lock: new OwnedLock(redis),
        faultLab: { lostReplyCase: true },
      },
      {
        name: 'redis-reentrant',
        family,
        course: '§2.6',
        description: {
          en: 'A Lua hash lock (owner → hold count); each request takes it twice, as nested code would.',
          zh: '用 Lua 脚本操作的 hash 锁（持锁者 → 重入次数）；每个请求加锁两次，就像嵌套调用那样：可重入锁。',
        },
        expected: {
          oneInstance: 'exact',
          threeInstances: 'exact',
          workOverTtl: 'oversells',
          note: 'reentrant within one request; the lease can still run out when work > ttl',
        },
        lock: new ReentrantLock(redis),
        scope: withLockReentered,
        faultLab: { lostReplyCase: true },
      },
      {
        name: 'redis-watchdog',
        family,
        course: '§2.7',
        description: {
          en: 'The reentrant hash lock plus a watchdog renewing the lease every ttl/3 while it is held.',
          zh: '可重入的 hash 锁，再加一只看门狗：持锁期间每过 ttl/3 自动续期一次。',
        },
        expected: {
          oneInstance: 'exact',
          threeInstances: 'exact',
          workOverTtl: 'exact',
          note: 'exact also when work > ttl; a crashed holder’s lock still expires after ttl',
        },
        lock: new WatchdogLock(redis),
        faultLab: { lostReplyCase: true },
      },
      {
        name: 'redis-pubsub',
        family,
        course: '§2.10',
        description: {
          en: `The reentrant hash lock; waiters sleep until a release is published or the holder’s lease ends. A holder passes the lock straight to a sleeping waiter of its own instance, in one script (at most ${MAX_HANDOFF_STREAK} times in a row).`,
          zh: `可重入的 hash 锁；等待者睡眠，直到收到锁释放的发布消息，或持锁者的租期结束。持锁者在同一个脚本里把锁直接交给本实例中正在睡眠的等待者（最多连续 ${MAX_HANDOFF_STREAK} 次）。`,
        },
        expected: { oneInstance: 'exact', threeInstances: 'exact', workOverTtl: 'oversells', note: 'Redisson-style waiting: no polling interval' },
        lock: new PubsubLock(redis, notifier),
        faultLab: { lostReplyCase: true },
      },
    ]),
    // Every lock key on the main Redis, Redisson's included.
    clearLocks: () => deleteLockKeys(redis),
    async close() {
      watchPool.close();
      subscriber.disconnect();
    },
  };
};
