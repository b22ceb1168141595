// GET /test/zk/share/count (SharedCount) and /test/zk/atomic (DistributedAtomicLong).
import { randomInt } from 'node:crypto';
import type { Express } from 'express';
import { BadRequestError, oneString, rejectUnknownParams } from '../../http/params.js';
import { changingGetRoute } from '../../http/methods.js';
import { newOwnerToken } from '../../locks/owner.js';
import { ZkAtomicLong } from '../../locks/zk/atomic-long.js';
import type { VersionedValue } from '../../locks/zk/counter-node.js';
import { ZkSharedCount } from '../../locks/zk/shared-count.js';
import { ZkWatchLock } from '../../locks/zk/watch.js';
import { RetriesExhaustedError, retryOnConflict } from '../../strategies/retry.js';
import { retryMsParam, waitMsParam, type RecipeContext } from './context.js';

/** The course's paths: "/curator/count", and the atomic long's (with the lock it is promoted to). */
export const counterPaths = (root: string) => ({ count: `${root}/count`, atomic: `${root}/atomic` });
const ATOMIC_LOCK = 'atomic-promoted';

/** Compare-and-sets an atomic increment tries before it takes the lock (Curator's retry policy, e.g. RetryNTimes(5, …)). */
const OPTIMISTIC_TRIES = 5;

const SHARE_OPS = ['set', 'increment'] as const;

export interface CounterRoutes {
  /** Stops the shared count's watch. */
  close(): void;
}

export function counterRoutes(app: Express, { session, limits, instance }: RecipeContext): CounterRoutes {
  const paths = counterPaths(session.root);
  // new SharedCount(client, "/curator/count", 0), started once per instance, with a listener.
  const count = new ZkSharedCount(session, paths.count, 0);
  const heard = { changes: 0, last: undefined as VersionedValue | undefined };
  count.addListener((value) => {
    heard.changes++;
    heard.last = value;
  });
  const atomic = new ZkAtomicLong(session, paths.atomic, { optimisticTries: OPTIMISTIC_TRIES, lock: new ZkWatchLock(session), lockResource: ATOMIC_LOCK });
  const listener = () => ({ changesHeard: heard.changes, ...(heard.last && { lastHeard: heard.last.value }) });

  changingGetRoute(app, '/test/zk/share/count', async (req, res) => {
    rejectUnknownParams(req.query, ['op', 'waitMs', 'retryMs']);
    const opName = oneString(req.query, 'op') ?? 'set';
    const op = SHARE_OPS.find((o) => o === opName);
    if (!op) throw new BadRequestError('op', `op must be one of ${SHARE_OPS.join(', ')}`, SHARE_OPS);
    const waitMs = waitMsParam(req.query, limits);
    const retryMs = retryMsParam(req.query, limits);
    const deadline = Date.now() + waitMs;
    if (op === 'set') {
      // The course: read the count, then set a random one whatever happened in between.
      const was = await count.read(deadline);
      const now = await count.set(randomInt(1_000));
      res.json({ ok: true, op, was: was.value, now: now.value, version: now.version, listener: listener(), instance });
      return;
    }
    let attempts = 0;
    const was = await retryOnConflict(deadline, { waitMs, retryMs }, async () => {
      attempts++;
      const current = await count.read(deadline);
      return (await count.trySet(current, current.value + 1)) ? current : 'conflict';
    });
    res.json({ ok: true, op, was: was.value, now: was.value + 1, attempts, listener: listener(), instance });
  });

  changingGetRoute(app, '/test/zk/atomic', async (req, res) => {
    rejectUnknownParams(req.query, ['waitMs', 'retryMs']);
    const waitMs = waitMsParam(req.query, limits);
    const opts = { ttlMs: limits.ttlMsDefault, waitMs, retryMs: retryMsParam(req.query, limits), owner: newOwnerToken(instance) };
    const outcome = await atomic.add(1, opts);
    const tries = { optimistic: outcome.optimisticTries, promoted: outcome.promotedTries };
    if (!outcome.succeeded) throw new RetriesExhaustedError(tries.optimistic + tries.promoted, waitMs);
    res.json({ ok: true, was: outcome.preValue, now: outcome.postValue, attempts: tries, promotedToLock: tries.promoted > 0, instance });
  });

  return { close: () => count.close() };
}
