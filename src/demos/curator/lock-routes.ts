// GET /test/zk/read, /test/zk/write (InterProcessReadWriteLock) and /test/zk/semaphore
// (InterProcessSemaphoreV2): each holds its lock for workMs and answers how long it waited and how
// many held at once when it entered, counted cluster-wide (holders-gauge.ts).
import type { Express, Response } from 'express';
import { changingGetRoute } from '../../http/methods.js';
import { intParam, rejectUnknownParams, type Query } from '../../http/params.js';
import type { Lock } from '../../locks/lock.js';
import { newOwnerToken } from '../../locks/owner.js';
import { withLock } from '../../locks/scope.js';
import { ZkReadWriteLock } from '../../locks/zk/read-write.js';
import { ZkSemaphore } from '../../locks/zk/semaphore.js';
import { sleep } from '../../time.js';
import { HoldersGauge } from '../holders-gauge.js';
import { clientSignal, waitMsParam, type RecipeContext } from './context.js';

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

  /** Holds `lock` on `resource` for workMs, counted in `gauge` as `role`: how long it waited, what it saw. */
  async function hold(lock: Lock, resource: string, query: Query, res: Response, gauge: HoldersGauge, role: string) {
    const { waitMs, workMs } = holdParams(query);
    const signal = clientSignal(res);
    const t0 = Date.now();
    let waitedMs = 0;
    const opts = { ttlMs: limits.ttlMsDefault, waitMs, retryMs: limits.retryMsDefault, owner: newOwnerToken(instance), signal };
    const { value, releaseError } = await withLock(lock, resource, opts, async (held) => {
      waitedMs = Date.now() - t0;
      const { seen } = await gauge.during(role, () => sleep(workMs, signal));
      return { seen, lost: held.lost.aborted };
    });
    // The session dropped while held: another may have held it too, and the counts would say so.
    const warning = value.lost ? 'lock_lost_during_work' : releaseError ? 'release_failed' : undefined;
    return { waitedMs, workMs, holdersSeen: value.seen, ...(warning && { warning }) };
  }

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
