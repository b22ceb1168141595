// GET /test/zk/read, /test/zk/write (InterProcessReadWriteLock) and /test/zk/semaphore
// (InterProcessSemaphoreV2): each holds its lock for workMs and answers how long it waited and how
// many held at once when it entered, counted cluster-wide (holders-gauge.ts).
import type { Express, Response } from 'express';
import { changingGetRoute } from '../../http/methods.js';
import { intParam, rejectUnknownParams, type Query } from '../../http/params.js';
import type { Lock } from '../../locks/lock.js';
import { ZkReadWriteLock } from '../../locks/zk/read-write.js';
import { ZkSemaphore } from '../../locks/zk/semaphore.js';
import { HoldersGauge } from '../holders-gauge.js';
import { holdCounted } from '../hold.js';
import { waitMsParam, type RecipeContext } from './context.js';

/** The course's paths: "/curator/rwlock" and "/locks/semaphore" (one semaphore per lease count). */
export const RW_LOCK = 'rwlock';
export const semaphoreResource = (leases: number): string => `semaphore-${leases}`;

/** The course's InterProcessSemaphoreV2(…, 5). */
const DEFAULT_LEASES = 5;
const MAX_LEASES = 1_000;

/** Where the gauges count holders, cluster-wide (the semaphore's per lease count, as a role). */
export const GAUGE_KEYS = { readWrite: 'demo:holders:zk-rwlock', semaphore: 'demo:holders:zk-semaphore' } as const;

export function lockRoutes(app: Express, ctx: RecipeContext): void {
  const { session, redis, limits, instance } = ctx;
  const rw = new ZkReadWriteLock(session);
  const rwGauge = new HoldersGauge(redis, GAUGE_KEYS.readWrite, ['read', 'write']);
  // Every user of a semaphore must agree on its lease count: each count is a semaphore of its own.
  const semaphores = new Map<number, ZkSemaphore>();

  const holdParams = (query: Query) => ({ waitMs: waitMsParam(query, limits), workMs: intParam(query, 'workMs', 0, limits.workMsMax, 0) });

  const hold = (lock: Lock, resource: string, query: Query, res: Response, gauge: HoldersGauge, role: string) =>
    holdCounted(lock, resource, { ...holdParams(query), ttlMs: limits.ttlMsDefault, retryMs: limits.retryMsDefault, instance, res }, gauge, role);

  for (const mode of ['read', 'write'] as const) {
    changingGetRoute(app, `/test/zk/${mode}`, async (req, res) => {
      rejectUnknownParams(req.query, ['workMs', 'waitMs']);
      const held = await hold(mode === 'read' ? rw.readLock : rw.writeLock, RW_LOCK, req.query, res, rwGauge, mode);
      res.json({ ok: true, lock: RW_LOCK, mode, ...held, instance });
    });
  }

  changingGetRoute(app, '/test/zk/semaphore', async (req, res) => {
    rejectUnknownParams(req.query, ['leases', 'workMs', 'waitMs']);
    const leases = intParam(req.query, 'leases', 1, MAX_LEASES, DEFAULT_LEASES);
    let semaphore = semaphores.get(leases);
    if (!semaphore) semaphores.set(leases, (semaphore = new ZkSemaphore(session, leases)));
    const role = String(leases);
    const held = await hold(semaphore, semaphoreResource(leases), req.query, res, new HoldersGauge(redis, GAUGE_KEYS.semaphore, [role]), role);
    res.json({ ok: true, semaphore: semaphoreResource(leases), leases, ...held, holdersSeen: held.holdersSeen[role], instance });
  });
}
