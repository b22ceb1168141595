// dependency-stop: the store a deduction writes to stops while requests are in flight (one in its
// work, the others waiting for the lock). Every answer must be a documented one, every deduction
// all or nothing (sold = deducted, reconciled by request id), and the service must recover alone.
import { sleep } from '../../src/time.js';
import type { StoreKind } from '../../src/stock/store.js';
import { runCase, type Case, type Verdict } from '../case.js';
import { instances, type Instance } from '../cluster-ops.js';
import type { CheckParams, Sent } from '../client.js';
import { startDependency, stopDependency, type Dependency } from '../dependencies.js';
import { answersText } from '../holder.js';
import { timeUntilAllSold } from '../recovery.js';
import { badRequests, isSafe, type FaultRow } from '../row.js';
import type { FaultContext, Scenario } from '../scenario.js';

interface StopCase {
  dependency: Dependency;
  store: StoreKind;
  strategies: readonly string[];
}

/** A row lock, a Redis lock and the lock table on MySQL; Lua and a Redis lock on the Redis key. */
const CASES: readonly StopCase[] = [
  { dependency: 'mysql', store: 'mysql', strategies: ['sql-for-update', 'redis-owned', 'mysql-lock-table'] },
  { dependency: 'redis', store: 'redis', strategies: ['redis-lua-decr', 'redis-owned'] },
];

/** A held lock outlives an outage its release could not reach: a short lease keeps the recovery short. */
const IN_FLIGHT: CheckParams = { workMs: 300, waitMs: 4_000, ttlMs: 2_000 };
/** Into the run when the server stops: with a lock, one request is in its work and the others wait. */
const STOP_AFTER_MS = 450;
/** Each client's pause between its requests: enough requests in flight for the fast strategies, without selling out. */
const PACE_MS = 50;
const RECOVER_BOUND_MS = 15_000;

/**
 * `clients` loops, one per instance in turn, each sending its next request as soon as its last one
 * answered (after PACE_MS), until `until` resolves, or holds (a check made before each request):
 * whatever the strategy's speed, requests are in flight at the moment the server stops. Stopped by
 * a check, a loop sends nothing more once it holds, so at most one request per other client is
 * still out then.
 */
export async function keepSending(
  c: Case,
  targets: readonly Instance[],
  clients: number,
  until: Promise<unknown> | (() => boolean),
  params: CheckParams = IN_FLIGHT,
  role = 'inflight',
): Promise<Sent[]> {
  let done = false;
  if (typeof until !== 'function') void until.finally(() => (done = true));
  const over = () => done || (typeof until === 'function' && until());
  const loop = async (k: number): Promise<Sent[]> => {
    const out: Sent[] = [];
    while (!over()) {
      out.push(await c.send(targets[k % targets.length]!, role, params));
      if (!over()) await sleep(PACE_MS);
    }
    return out;
  };
  return (await Promise.all(Array.from({ length: clients }, (_v, k) => loop(k)))).flat();
}

export async function stopCase(ctx: FaultContext, dep: Dependency, store: StoreKind, strategy: string): Promise<FaultRow> {
  const key = { scenario: 'dependency-stop', strategy, variant: `${dep} stopped`, store };
  return runCase(ctx, key, ctx.sizes.initial, async (c): Promise<Verdict> => {
    const all = instances(ctx.cluster);
    const stop = sleep(STOP_AFTER_MS).then(async () => {
      const t0 = Date.now();
      await stopDependency(ctx.cluster, dep);
      return Date.now() - t0;
    });
    const answers = await keepSending(c, all, ctx.sizes.inFlight, stop);
    const stopMs = await stop;
    await startDependency(ctx.cluster, dep);
    const upAt = Date.now();
    const recoverMs = await timeUntilAllSold(c, all, { waitMs: 4_000 }, upAt, RECOVER_BOUND_MS);
    return {
      expected: `documented answers only; sold (reconciled) = deducted exactly; every instance deducts again ≤ ${RECOVER_BOUND_MS / 1000} s after the restart`,
      recoverMs,
      recoverBoundMs: RECOVER_BOUND_MS,
      details: [
        `${ctx.sizes.inFlight} clients (workMs ${IN_FLIGHT.workMs}, ttlMs ${IN_FLIGHT.ttlMs}) until ${dep} stopped (+${STOP_AFTER_MS} ms, took ${stopMs} ms): ${answersText(answers)}`,
      ],
      // an honest "outcome unknown" is allowed: /sales reconciles it, and isSafe checks the sum
      holds: (m) => isSafe(m) && (m.answers['no answer'] ?? 0) === 0 && badRequests(m) === 0 && recoverMs !== null,
    };
  });
}

export const dependencyStop: Scenario = {
  name: 'dependency-stop',
  description:
    `A few clients send deductions one after the other (${IN_FLIGHT.workMs} ms of work each, spread over the three instances) until the store has stopped, ${STOP_AFTER_MS} ms in: ` +
    "MySQL by its graceful stop, Redis by SHUTDOWN SAVE (the lab's Redis keeps no data otherwise, so the restart would start empty). " +
    'Every answer must be documented (200/409/503; a 503 outcome_unknown is reconciled through GET /sales), sold must equal deducted exactly, and each instance must deduct again after the restart; ' +
    '"recover" is the time from the server being up again to the slowest instance\'s first 200; a lock whose release could not reach the stopped server holds until its lease (ttlMs) ends.',
  async run(ctx) {
    const rows: FaultRow[] = [];
    for (const { dependency, store, strategies } of CASES) {
      for (const strategy of strategies.filter(ctx.wants)) rows.push(await stopCase(ctx, dependency, store, strategy));
    }
    return rows;
  },
};
