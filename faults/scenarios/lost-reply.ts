// lost-reply: a lock acquire the server applies, whose reply never reaches the instance. Redis is
// frozen (SIGSTOP) while app-0's acquire waits unread in its socket; app-0 gives up after its command
// timeout (503 redis_unavailable); on SIGCONT the server applies the acquire, and the lock has an
// owner who already left. The service sends an owner-checked release right behind it on the same
// connection: how soon app-1 gets the lock is the measure of that clean-up.
import { pollUntil } from '../../src/time.js';
import { runCase, type Verdict } from '../case.js';
import { instance } from '../cluster-ops.js';
import { isSold, outcomeKey, type CheckParams, type Sent } from '../client.js';
import { holderText } from '../holder.js';
import { labLocksOf, REDIS_COMMAND_TIMEOUT_MS } from '../locks.js';
import { resume } from '../process-state.js';
import { fenceCount, freezeRedis, lockKeysPresent, openRedis, redisPid } from '../redis-inspect.js';
import { badRequests, isSafe, type FaultRow } from '../row.js';
import type { FaultContext, Scenario } from '../scenario.js';
import { readSales } from '../service.js';

/** A lease far longer than the case, so its expiry cannot be what frees the lock (redis-setnx has none). */
const TTL_MS = 30_000;
/** How long app-1's request may wait for the lock: without the clean-up it answers 503 lock_timeout then. */
const NEXT_WAIT_MS = 5_000;
/** SIGCONT to app-1's sale: the queued acquire and release, app-1's poll (retryMs 20) and one deduction. */
const RECOVER_BOUND_MS = 2_000;
/** The lost request's answer comes after the command timeout; past this bound the case stops waiting. */
const LOST_ANSWER_BOUND_MS = REDIS_COMMAND_TIMEOUT_MS + 4_000;
/** After SIGCONT, how long the server may take to apply what waited in its socket. */
const APPLIED_WITHIN_MS = 2_000;

const PARAMS: CheckParams = { ttlMs: TTL_MS, waitMs: NEXT_WAIT_MS };
const EXPECTED = `released by its owner: app-1 sells ≤ ${RECOVER_BOUND_MS} ms after SIGCONT and no lock key is left; the lost request 503 redis_unavailable, sold nothing`;

async function lostReplyCase(ctx: FaultContext, strategy: string): Promise<FaultRow> {
  const key = { scenario: 'lost-reply', strategy, variant: 'acquire reply lost', store: 'mysql' as const };
  return runCase(ctx, key, ctx.sizes.initial, async (c): Promise<Verdict> => {
    const [app0, app1] = [instance(ctx.cluster, 0), instance(ctx.cluster, 1)];
    const redis = await openRedis(ctx.cluster);
    try {
      // One sale first: app-0's connection is ready (after an earlier Redis restart too), and the
      // server has the acquire script cached: a timed-out EVALSHA never sees its NOSCRIPT, so never
      // falls back to EVAL, and an uncached acquire would simply not be applied (no fault to measure).
      const warm = await c.send(app0, 'warm', PARAMS);
      if (!isSold(warm.outcome)) return { expected: 'app-0 sells once before Redis is frozen', holds: () => false, details: [holderText(warm, 'warm')] };
      const before = await fenceCount(redis);

      const pid = redisPid(ctx.cluster);
      let lost: Sent;
      let thawedAt: number;
      try {
        await freezeRedis(pid);
        // its acquire waits unread in the stopped server's socket; the answer comes after the command timeout
        lost = await c.send(app0, 'lost', PARAMS, LOST_ANSWER_BOUND_MS);
      } finally {
        resume(pid);
        thawedAt = Date.now();
      }
      // Sequenced: app-1 asks only once the server has applied the lost acquire (it drew a token).
      const applied = await pollUntil(async () => (await fenceCount(redis)) > before, APPLIED_WITHIN_MS, 5);
      const next = await c.send(app1, 'next', PARAMS);
      const recoverMs = isSold(next.outcome) ? next.startedAt + next.ms - thawedAt : null;

      const keysLeft = await lockKeysPresent(redis);
      const grants = Number((await fenceCount(redis)) - before);
      const lostCommitted = ((await readSales(app0.base))?.[lost.id] ?? 0) > 0;
      const lostKey = outcomeKey(lost.outcome);
      return {
        expected: EXPECTED,
        recoverMs,
        recoverBoundMs: RECOVER_BOUND_MS,
        details: [
          holderText(lost, 'lost (app-0, Redis stopped)'),
          `acquire applied on SIGCONT: ${applied ? 'yes' : 'NO (the fault was not built)'}; grants since the freeze ${grants} (the lost one and app-1's)`,
          `next (app-1, waitMs ${NEXT_WAIT_MS}): ${outcomeKey(next.outcome)} after ${next.ms} ms`,
          `lock keys left after the sale: ${keysLeft.length === 0 ? 'none' : keysLeft.join(', ')}; the lost request committed: ${lostCommitted ? 'YES' : 'no'}`,
        ],
        facts: { acquireApplied: applied, grants, keysLeft: keysLeft.length, lostCommitted, lostMs: lost.ms },
        holds: (m) =>
          isSafe(m) &&
          badRequests(m) === 0 &&
          applied &&
          lostKey === '503 redis_unavailable' &&
          !lostCommitted &&
          recoverMs !== null &&
          recoverMs <= RECOVER_BOUND_MS &&
          keysLeft.length === 0,
      };
    } finally {
      redis.disconnect();
    }
  });
}

export const lostReply: Scenario = {
  name: 'lost-reply',
  description:
    `Each single-server Redis lock, ttlMs ${TTL_MS} (longer than the case, so no lease expiry frees the lock; redis-setnx has none). After one sale on app-0, redis-server is frozen (SIGSTOP) ` +
    `and app-0 gets one deduction: its acquire waits unread in the server's socket, and after the instances' ${REDIS_COMMAND_TIMEOUT_MS} ms command timeout app-0 answers 503 redis_unavailable. ` +
    'Then SIGCONT: the server applies the acquire (the lab sees its fencing counter move), so the lock has an owner who already gave up, and then the owner-checked release app-0 sent behind it on the same connection. ' +
    `app-1 then asks for the lock (waitMs ${NEXT_WAIT_MS}); "recover" is the time from SIGCONT to its 200. Without the clean-up it would never come for redis-setnx and only after ≈ ttl ${TTL_MS / 1000} s for the others (503 lock_timeout here). ` +
    'The lab then reads Redis directly: no stock lock key may be left, and the lost request must have sold nothing.',
  async run(ctx) {
    const rows: FaultRow[] = [];
    for (const strategy of (await labLocksOf(ctx.cluster)).singleRedis.filter(ctx.wants)) rows.push(await lostReplyCase(ctx, strategy));
    return rows;
  },
};
