// Redisson's primitives beyond the mutex (course §2.10), each behind the course's endpoint:
// /test/read and /test/write (the read-write lock), /test/semaphore, /test/latch and
// /test/countdown. Each answer says how long it waited and, where several may hold at once, how
// many held at once when it entered, counted cluster-wide (holders-gauge.ts).
import type { Request, Response } from 'express';
import { readWriteLockKeys, latchKeys, semaphoreKeys } from '../locks/redis/keys.js';
import { CountDownLatch } from '../locks/redis/redisson/latch.js';
import { ReadWriteLock, type ReadWriteMode } from '../locks/redis/redisson/read-write.js';
import { ReleaseNotifier } from '../locks/redis/wait/release-notifier.js';
import { ExpirableSemaphore, Semaphore } from '../locks/redis/redisson/semaphore.js';
import type { Lock } from '../locks/lock.js';
import { changingGetRoute } from '../http/methods.js';
import { flag, intParam, rejectUnknownParams, type Query } from '../http/params.js';
import { connectMainRedis, waitReady } from '../redis-client/connect.js';
import { redisCall } from '../redis-client/call.js';
import type { DemoFactory } from './demo.js';
import { admittedSignal } from '../http/in-flight.js';
import { holdCounted } from './hold.js';
import { HoldersGauge } from './holders-gauge.js';

/** The course's names: getReadWriteLock("rwLock"), getSemaphore("semaphore"), getCountDownLatch("latch"). */
export const RW_LOCK = 'rwLock';
export const SEMAPHORE = 'semaphore';
export const EXPIRABLE_SEMAPHORE = 'semaphore-expirable';
export const LATCH = 'latch';

/** The course's sizes: trySetPermits(3), trySetCount(6). */
const DEFAULT_PERMITS = 3;
const DEFAULT_COUNT = 6;
/** Upper bounds of what a click may ask for. */
const MAX_PERMITS = 1_000;
const MAX_COUNT = 1_000;

/** Where the gauges count holders, cluster-wide. */
export const gaugeKeys = {
  readWrite: `demo:holders:${RW_LOCK}`,
  semaphore: (name: string) => `demo:holders:${name}`,
};

export const redissonDemos: DemoFactory = async ({ config, redis }) => {
  const { limits, instanceId: instance } = config;
  const subscriber = connectMainRedis(config, `${instance}:redisson-demos`);
  // Not fatal when Redis is down at start: waiters re-ask every second until messages flow.
  await waitReady(subscriber, 2_000);
  const notifier = new ReleaseNotifier(subscriber);
  const rw = new ReadWriteLock(redis, notifier);
  const semaphores = { plain: new Semaphore(redis, notifier), expirable: new ExpirableSemaphore(redis, notifier) };
  const latch = new CountDownLatch(redis, notifier);
  const rwGauge = new HoldersGauge(redis, gaugeKeys.readWrite, ['read', 'write']);
  const semaphoreGauges = {
    [SEMAPHORE]: new HoldersGauge(redis, gaugeKeys.semaphore(SEMAPHORE), ['holders']),
    [EXPIRABLE_SEMAPHORE]: new HoldersGauge(redis, gaugeKeys.semaphore(EXPIRABLE_SEMAPHORE), ['holders']),
  };

  const waitParams = (query: Query) => ({
    waitMs: intParam(query, 'waitMs', 0, limits.waitMsMax, limits.waitMsDefault),
  });
  const holdParams = (query: Query) => ({
    ...waitParams(query),
    workMs: intParam(query, 'workMs', 0, limits.workMsMax, 0),
    ttlMs: intParam(query, 'ttlMs', 1, limits.ttlMsMax, limits.ttlMsDefault),
  });

  const hold = (lock: Lock, resource: string, query: Query, res: Response, gauge: HoldersGauge, role: string) =>
    holdCounted(lock, resource, { ...holdParams(query), retryMs: limits.retryMsDefault, instance, res }, gauge, role);

  const readWrite = (mode: ReadWriteMode) => async (req: Request, res: Response) => {
    rejectUnknownParams(req.query, ['workMs', 'waitMs', 'ttlMs']);
    const held = await hold(rw[mode], RW_LOCK, req.query, res, rwGauge, mode);
    res.json({ ok: true, lock: RW_LOCK, mode, ...held, instance });
  };

  return {
    name: 'redisson',
    routes(app) {
      changingGetRoute(app, '/test/read', readWrite('read'));
      changingGetRoute(app, '/test/write', readWrite('write'));

      changingGetRoute(app, '/test/semaphore', async (req, res) => {
        rejectUnknownParams(req.query, ['permits', 'workMs', 'waitMs', 'ttlMs', 'expirable']);
        const permits = intParam(req.query, 'permits', 1, MAX_PERMITS, DEFAULT_PERMITS);
        const expirable = flag(req.query, 'expirable');
        const name = expirable ? EXPIRABLE_SEMAPHORE : SEMAPHORE;
        const semaphore = expirable ? semaphores.expirable : semaphores.plain;
        holdParams(req.query); // every parameter checked before anything changes
        const permitsSetByThisCall = await semaphore.trySetPermits(name, permits);
        const held = await hold(semaphore, name, req.query, res, semaphoreGauges[name], 'holders');
        const { set } = await semaphore.count(name);
        res.json({ ok: true, semaphore: name, expirable, permits: set, permitsSetByThisCall, ...held, holdersSeen: held.holdersSeen.holders, instance });
      });

      changingGetRoute(app, '/test/latch', async (req, res) => {
        rejectUnknownParams(req.query, ['count', 'waitMs']);
        const count = intParam(req.query, 'count', 1, MAX_COUNT, DEFAULT_COUNT);
        const { waitMs } = waitParams(req.query);
        const armedByThisCall = await latch.trySetCount(LATCH, count);
        const t0 = Date.now();
        await latch.await(LATCH, { waitMs, signal: admittedSignal(res) });
        res.json({ ok: true, latch: LATCH, open: true, armedByThisCall, waitedMs: Date.now() - t0, instance });
      });

      changingGetRoute(app, '/test/countdown', async (req, res) => {
        rejectUnknownParams(req.query, ['count']);
        const count = intParam(req.query, 'count', 1, MAX_COUNT, DEFAULT_COUNT);
        const armedByThisCall = await latch.trySetCount(LATCH, count);
        const left = await latch.countDown(LATCH);
        res.json({ ok: true, latch: LATCH, left, open: left === 0, armedByThisCall, instance });
      });
    },
    async reset() {
      const rwKeys = readWriteLockKeys(RW_LOCK);
      const keys = [
        rwKeys.lock,
        rwKeys.leases,
        latchKeys(LATCH).count,
        ...[SEMAPHORE, EXPIRABLE_SEMAPHORE].flatMap((name) => {
          const { permits, total, leases } = semaphoreKeys(name);
          return [permits, total, leases, gaugeKeys.semaphore(name)];
        }),
        gaugeKeys.readWrite,
      ];
      await redisCall(() => redis.del(...keys));
    },
    async close() {
      subscriber.disconnect();
    },
  };
};
