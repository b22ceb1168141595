// course-flaws: the course's flawed steps, each broken the way the course says it breaks, beside
// the step that fixes it. Every case is sequenced: an instance stops itself inside the lock (a
// pause point), the lab does what the flaw needs meanwhile (a kill, a lease running out, another
// request), then lets it run. The figures come from the store and GET /sales as in every case.
import type { Redis } from 'ioredis';
import { createDataSource } from '../../src/db/data-source.js';
import { stringLockKey } from '../../src/locks/redis/keys.js';
import { ZkHerdLock } from '../../src/locks/zk/herd.js';
import type { QueueLock } from '../../src/locks/zk/queue.js';
import { ZkSession } from '../../src/locks/zk/session.js';
import { ZkWatchLock } from '../../src/locks/zk/watch.js';
import { createLogger } from '../../src/logger.js';
import { STOCK_LOCK_RESOURCE } from '../../src/stock/product.js';
import { pollUntil } from '../../src/time.js';
import { runCase, type Case, type Verdict } from '../case.js';
import { instance, pidOf, type Instance } from '../cluster-ops.js';
import { isSold, outcomeKey, type Sent } from '../client.js';
import { answersText, freezeHolder, holderText, type Frozen } from '../holder.js';
import { isStopped, resume } from '../process-state.js';
import { timeUntilSold } from '../recovery.js';
import { openRedis } from '../redis-inspect.js';
import { isSafe, type FaultRow } from '../row.js';
import type { FaultContext, Scenario } from '../scenario.js';
import { wakeUpsPerHandOff } from '../zk-wakeups.js';

const LOCK_KEY = stringLockKey(STOCK_LOCK_RESOURCE);

/** The owner-token prefix of an instance's requests: its id is app-<port> (config.ts). */
const ownerPrefix = (i: Instance): string => `app-${i.server.port}:`;

/** The holder's request froze, or the case cannot go on. */
function frozenOrThrow(f: Frozen, label: string): Extract<Frozen, { frozen: true }> {
  if (!f.frozen) throw new Error(`${label} did not stop at its pause point: ${holderText(f.answer, label)}`);
  return f;
}

async function withRedis<T>(ctx: FaultContext, body: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = await openRedis(ctx.cluster);
  try {
    return await body(redis);
  } finally {
    redis.disconnect();
  }
}

const sold = (answers: readonly Sent[]) => answers.filter((s) => isSold(s.outcome)).length;

// ── a holder killed between SETNX and EXPIRE ────────────────────────────────────────────────────

const CRASH_TTL_MS = 500;
/** How long the lab keeps asking for a lock with no expiry: ten leases. */
const STUCK_BOUND_MS = 10 * CRASH_TTL_MS;
/** Each probe's own wait: short, so a stuck lock answers 503 lock_timeout soon. */
const PROBE = { waitMs: 300, ttlMs: CRASH_TTL_MS };

async function crashBetweenCase(ctx: FaultContext, strategy: 'redis-setnx-expire' | 'redis-setnx-ex'): Promise<FaultRow> {
  const split = strategy === 'redis-setnx-expire';
  const pause = split ? 'after-setnx' : 'after-acquire';
  const key = { scenario: 'course-flaws', strategy, variant: `killed at pause=${pause}`, store: 'mysql' as const };
  return runCase(ctx, key, ctx.sizes.initial, (c) =>
    withRedis(ctx, async (redis): Promise<Verdict> => {
      const [holderAt, nextAt] = [instance(ctx.cluster, 0), instance(ctx.cluster, 1)];
      frozenOrThrow(await freezeHolder(c, holderAt, { pause, ttlMs: CRASH_TTL_MS }), 'the holder');
      const pttlAtCrash = await redis.pttl(LOCK_KEY);
      await holderAt.server.kill();
      const killedAt = Date.now();
      const recoverMs = await timeUntilSold(c, nextAt, PROBE, killedAt, STUCK_BOUND_MS);
      const pttlAfter = await redis.pttl(LOCK_KEY);
      await holderAt.server.start();
      const probes = c.sent.filter((s) => s.role === 'probe');
      const details = [
        `PTTL at the crash ${pttlAtCrash} ms, after the probes ${pttlAfter} (-2: no key)`,
        `probes (app-1, waitMs ${PROBE.waitMs}): ${answersText(probes)}`,
      ];
      if (split) {
        return {
          expected: `stuck: PTTL -1, every probe 503 lock_timeout for ${STUCK_BOUND_MS} ms, not recovered (a reset clears it)`,
          recoverMs,
          recoverBoundMs: STUCK_BOUND_MS,
          details: [...details, recoverMs === null ? `not recovered within ${STUCK_BOUND_MS} ms` : `recovered after ${recoverMs} ms`],
          facts: { pttlAtCrash, pttlAfter },
          holds: (m) =>
            isSafe(m) && recoverMs === null && pttlAtCrash === -1 && pttlAfter === -1 && probes.every((p) => outcomeKey(p.outcome) === '503 lock_timeout'),
        };
      }
      return {
        expected: `heals: PTTL > 0 at the crash, the next request sells ≤ ttl ${CRASH_TTL_MS} ms + 1000 after the kill`,
        recoverMs,
        recoverBoundMs: CRASH_TTL_MS + 1_000,
        details,
        facts: { pttlAtCrash, pttlAfter },
        holds: (m) => isSafe(m) && pttlAtCrash > 0 && recoverMs !== null && recoverMs <= CRASH_TTL_MS + 1_000,
      };
    }),
  );
}

// ── a lease that ends between the owner check and the delete ────────────────────────────────────

/** A's lease ends while it is frozen in its release; B and C hold leases longer than the case. */
const SHORT_TTL_MS = 1_000;
const B_PARAMS = { workMs: 3_000, ttlMs: 30_000, waitMs: 10_000 };
const C_PARAMS = { workMs: 500, ttlMs: 30_000, waitMs: 10_000 };
const C_INSIDE_WITHIN_MS = 1_000;

async function lateDeleteCase(ctx: FaultContext, strategy: 'redis-owned-get-del' | 'redis-owned'): Promise<FaultRow> {
  const key = { scenario: 'course-flaws', strategy, variant: 'lease ends before the delete', store: 'mysql' as const };
  return runCase(ctx, key, ctx.sizes.initial, (c) =>
    withRedis(ctx, async (redis): Promise<Verdict> => {
      const [aAt, bAt, cAt] = [0, 1, 2].map((i) => instance(ctx.cluster, i)) as [Instance, Instance, Instance];
      const a = frozenOrThrow(await freezeHolder(c, aAt, { pause: 'before-del', ttlMs: SHORT_TTL_MS }), 'A');
      if (!(await pollUntil(async () => (await redis.exists(LOCK_KEY)) === 0, SHORT_TTL_MS + 2_000, 10))) throw new Error("A's lease did not run out");
      let bDone = false;
      const b = c.send(bAt, 'B', B_PARAMS).finally(() => (bDone = true));
      if (!(await pollUntil(async () => (await redis.get(LOCK_KEY))?.startsWith(ownerPrefix(bAt)) ?? false, 5_000, 5)))
        throw new Error('B did not take the lock');
      resume(a.pid);
      const aAnswer = await a.answer;
      const bKeptItsLock = (await redis.get(LOCK_KEY))?.startsWith(ownerPrefix(bAt)) ?? false;
      // C enters now if A's delete took B's lock; else it waits for B.
      const cAnswer = c.send(cAt, 'C', C_PARAMS);
      // B works B_PARAMS.workMs: C holding within the first second of it is C inside beside B.
      const cEntered = await pollUntil(async () => (await redis.get(LOCK_KEY))?.startsWith(ownerPrefix(cAt)) ?? false, C_INSIDE_WITHIN_MS, 5);
      const twoHolders = cEntered && !bDone;
      const answers = [aAnswer, await b, await cAnswer];
      const details = [
        holderText(answers[0]!, 'A'),
        holderText(answers[1]!, 'B'),
        holderText(answers[2]!, 'C'),
        `after A's delete B still held the key: ${bKeptItsLock}; C inside while B worked: ${twoHolders}`,
      ];
      const facts = { twoHolders, bKeptItsLock };
      if (strategy === 'redis-owned-get-del') {
        return {
          expected: "A's DEL removes B's lock, C enters while B works: oversold 1",
          details,
          facts,
          holds: (m) => twoHolders && !bKeptItsLock && sold(answers) === 3 && m.oversold === 1 && m.undocumented === 0 && m.refusedButCommitted === 0,
        };
      }
      return {
        expected: "the compare-and-delete leaves B's lock, C waits for B: nothing oversold",
        details,
        facts,
        holds: (m) => isSafe(m) && !twoHolders && bKeptItsLock && sold(answers) === 3 && m.deducted === 3,
      };
    }),
  );
}

// ── an instance whose clock is ahead by more than the lease ─────────────────────────────────────

const SKEW_TTL_MS = 3_000;
const AHEAD_MS = 10_000;

async function setClock(at: Instance, offsetMs: number): Promise<void> {
  const res = await fetch(`${at.base}/fault/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ offsetMs }),
    signal: AbortSignal.timeout(5_000),
  });
  if (res.status !== 200) throw new Error(`POST ${at.base}/fault/clock: ${res.status}`);
}

async function clockAheadCase(ctx: FaultContext, strategy: 'redis-setnx-getset' | 'redis-owned'): Promise<FaultRow> {
  const key = { scenario: 'course-flaws', strategy, variant: `B's clock +${AHEAD_MS} ms`, store: 'mysql' as const };
  return runCase(ctx, key, ctx.sizes.initial, async (c): Promise<Verdict> => {
    const [aAt, bAt, cAt] = [0, 1, 2].map((i) => instance(ctx.cluster, i)) as [Instance, Instance, Instance];
    await setClock(bAt, AHEAD_MS);
    try {
      const a = frozenOrThrow(await freezeHolder(c, aAt, { pause: 'before-write', ttlMs: SKEW_TTL_MS }), 'A');
      // B: frozen before its write if it took A's live lock; else it waits and gives up (503 lock_timeout).
      const b = await freezeHolder(c, bAt, { pause: 'before-write', ttlMs: SKEW_TTL_MS, waitMs: 2_000 });
      resume(a.pid);
      const aAnswer = await a.answer;
      const cAnswer = await c.send(cAt, 'C', { ttlMs: SKEW_TTL_MS, waitMs: 2_000 });
      if (b.frozen) resume(b.pid);
      const bAnswer = b.frozen ? await b.answer : b.answer;
      const answers = [aAnswer, bAnswer, cAnswer];
      const details = [
        holderText(aAnswer, 'A (app-0)'),
        holderText(bAnswer, `B (app-1, clock +${AHEAD_MS} ms)`),
        holderText(cAnswer, 'C (app-2)'),
        `B took A's live lock: ${b.frozen}`,
      ];
      if (strategy === 'redis-setnx-getset') {
        return {
          expected: "B reads A's expiry as past and GETSETs a live lock; A's blind DEL frees it for C: oversold ≥ 1",
          details,
          facts: { bTookLiveLock: b.frozen },
          holds: (m) => b.frozen && sold(answers) === 3 && m.oversold >= 1 && m.undocumented === 0 && m.refusedButCommitted === 0,
        };
      }
      return {
        expected: "Redis expires the lease, not B's clock: B waits (503 lock_timeout), nothing oversold",
        details,
        facts: { bTookLiveLock: b.frozen },
        holds: (m) => isSafe(m) && !b.frozen && outcomeKey(bAnswer.outcome) === '503 lock_timeout' && m.deducted === 2,
      };
    } finally {
      // runCase resumes whatever is still frozen; the clock is this case's own to put back
      await setClock(bAt, 0);
    }
  });
}

// ── two requests holding the row's shared lock, then both writing ───────────────────────────────

/** Statements of the app's connections still running that match `like`: one waiting for a row lock stays running. */
async function runningStatements(ctx: FaultContext, like: string): Promise<number> {
  const db = createDataSource({ ...ctx.cluster.info.mysql, poolSize: 1, connectTimeoutMs: 5_000 });
  await db.initialize();
  try {
    const [row] = (await db.query(
      "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE COMMAND = 'Query' AND ID <> CONNECTION_ID() AND INFO LIKE ?",
      [like],
    )) as { n: number | string }[];
    return Number(row?.n ?? 0);
  } finally {
    await db.destroy();
  }
}

async function untilRunning(ctx: FaultContext, like: string): Promise<void> {
  if (!(await pollUntil(async () => (await runningStatements(ctx, like)) === 1, 5_000, 20))) throw new Error(`no statement like ${like} waiting`);
}

async function sharedReadCase(ctx: FaultContext, strategy: 'sql-share-mode' | 'sql-for-update'): Promise<FaultRow> {
  const key = { scenario: 'course-flaws', strategy, variant: 'two frozen after their reads', store: 'mysql' as const };
  return runCase(ctx, key, ctx.sizes.initial, async (c): Promise<Verdict> => {
    const [aAt, bAt] = [instance(ctx.cluster, 0), instance(ctx.cluster, 1)];
    const a = frozenOrThrow(await freezeHolder(c, aAt, { pause: 'after-read' }), 'A');
    if (strategy === 'sql-share-mode') {
      // Shared locks do not exclude each other: B reads too, and stops holding its own.
      const b = frozenOrThrow(await freezeHolder(c, bAt, { pause: 'after-read' }), 'B');
      resume(a.pid);
      await untilRunning(ctx, 'UPDATE%db_stock%'); // A's UPDATE waits for B's shared lock
      resume(b.pid); // B's UPDATE waits for A's: a cycle, InnoDB rolls one back
      const answers = [await a.answer, await b.answer];
      const keys = answers.map((s) => outcomeKey(s.outcome)).sort();
      return {
        expected: 'a deadlock: one 200, one 503 deadlock; one unit deducted, nothing twice',
        details: [holderText(answers[0]!, 'A'), holderText(answers[1]!, 'B')],
        holds: (m) => isSafe(m) && keys.join(',') === '200,503 deadlock' && m.deducted === 1,
      };
    }
    // FOR UPDATE: B's locking read queues behind A's, so B never reaches its pause while A holds.
    const bPid = pidOf(bAt);
    const b = c.send(bAt, 'B', { pause: 'after-read' });
    await untilRunning(ctx, 'SELECT%FOR UPDATE');
    const bQueued = !isStopped(bPid);
    resume(a.pid);
    const aAnswer = await a.answer;
    if (!(await pollUntil(() => isStopped(bPid), 5_000, 5))) throw new Error('B did not read after A committed');
    resume(bPid);
    const answers = [aAnswer, await b];
    return {
      expected: "B's read queues behind A's lock, then both sell: 2 deducted",
      details: [holderText(answers[0]!, 'A'), holderText(answers[1]!, 'B'), `B's read waited for A: ${bQueued}`],
      holds: (m) => isSafe(m) && bQueued && sold(answers) === 2 && m.deducted === 2,
    };
  });
}

// ── the herd: wake-ups per hand-off ─────────────────────────────────────────────────────────────

const HERD_WAITERS = 6;

async function herdCase(ctx: FaultContext, strategy: 'zk-herd' | 'zk-watch'): Promise<FaultRow> {
  const key = { scenario: 'course-flaws', strategy, variant: `${HERD_WAITERS} waiters, hand-offs one by one`, store: 'mysql' as const };
  return runCase(ctx, key, ctx.sizes.initial, async (_c: Case): Promise<Verdict> => {
    const session = await ZkSession.open(
      { connect: ctx.cluster.info.zookeeper, sessionTimeoutMs: 4_000, root: '/stocklab-faults/locks', logger: createLogger('silent') },
      10_000,
    );
    try {
      const lock: QueueLock = strategy === 'zk-herd' ? new ZkHerdLock(session) : new ZkWatchLock(session);
      const wakeUps = await wakeUpsPerHandOff(lock, HERD_WAITERS);
      const want = strategy === 'zk-herd' ? Array.from({ length: HERD_WAITERS }, (_, k) => HERD_WAITERS - k) : Array<number>(HERD_WAITERS).fill(1);
      return {
        expected: strategy === 'zk-herd' ? 'every parked waiter wakes at each hand-off: W, W−1, …, 1' : 'one waiter wakes at each hand-off: its successor',
        details: [
          `wake-ups per hand-off ${JSON.stringify(wakeUps)} (${wakeUps.reduce((x, y) => x + y, 0)} in all); the lab's own process on the lab's ZooKeeper, no deductions`,
        ],
        facts: { wakeUps: JSON.stringify(wakeUps), wakeUpsTotal: wakeUps.reduce((x, y) => x + y, 0) },
        holds: () => JSON.stringify(wakeUps) === JSON.stringify(want),
      };
    } finally {
      await session.close();
    }
  });
}

export const courseFlaws: Scenario = {
  name: 'course-flaws',
  description:
    "The course's flawed steps beside their fixes, each sequenced at a pause point. " +
    `redis-setnx-expire: the holder is killed between SETNX and EXPIRE (pause=after-setnx): the key has no expiry (PTTL -1), and app-1 probes (waitMs ${PROBE.waitMs}) for ${STUCK_BOUND_MS} ms: every probe 503 lock_timeout, not recovered; redis-setnx-ex killed right after its one SET NX PX heals after ttlMs ${CRASH_TTL_MS}. ` +
    `redis-owned-get-del: A (ttlMs ${SHORT_TTL_MS}) stops between its GET and its DEL (pause=before-del) until its lease ends; B takes the lock and works ${B_PARAMS.workMs} ms; A's DEL removes B's lock, and C enters while B works: oversold; redis-owned's compare-and-delete leaves B's lock. ` +
    `redis-setnx-getset: app-1's lock clock runs ${AHEAD_MS} ms ahead (POST /fault/clock); A holds (ttlMs ${SKEW_TTL_MS}, frozen before its write); B reads A's expiry as past and takes the live lock by GETSET; A's blind DEL frees it for C: oversold; redis-owned under the same skew waits (Redis, not B, expires the lease). ` +
    'sql-share-mode: A and B both stop after their shared reads (pause=after-read), then both update: a deadlock, one 503 deadlock; sql-for-update queues the second read. ' +
    `zk-herd and zk-watch: ${HERD_WAITERS} waiters behind a holder on the lab's ZooKeeper, in the lab's own process; wake-ups counted per hand-off.`,
  async run(ctx) {
    const rows: FaultRow[] = [];
    const cases: [string, () => Promise<FaultRow>][] = [
      ['redis-setnx-expire', () => crashBetweenCase(ctx, 'redis-setnx-expire')],
      ['redis-setnx-ex', () => crashBetweenCase(ctx, 'redis-setnx-ex')],
      ['redis-owned-get-del', () => lateDeleteCase(ctx, 'redis-owned-get-del')],
      ['redis-owned', () => lateDeleteCase(ctx, 'redis-owned')],
      ['redis-setnx-getset', () => clockAheadCase(ctx, 'redis-setnx-getset')],
      ['redis-owned', () => clockAheadCase(ctx, 'redis-owned')],
      ['sql-share-mode', () => sharedReadCase(ctx, 'sql-share-mode')],
      ['sql-for-update', () => sharedReadCase(ctx, 'sql-for-update')],
      ['zk-herd', () => herdCase(ctx, 'zk-herd')],
      ['zk-watch', () => herdCase(ctx, 'zk-watch')],
    ];
    for (const [strategy, run] of cases) if (ctx.wants(strategy)) rows.push(await run());
    return rows;
  },
};
