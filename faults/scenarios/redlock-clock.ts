// redlock-clock: RedLock and time (course §2.9; Kleppmann). A master whose clock jumps forward
// expires the lock's key early: a second client then finds a majority that never heard of the
// first, while the first is still within its validity. redis-server 7.0 will not start under
// Debian's libfaketime, so the jump is stood in for by cutting the key's remaining TTL to 1 ms
// (PEXPIRE) on the masters whose clocks "jump": what a jump past the lease does to that master.
// Then the split vote: three contenders with minorities of the five, without and with jitter.
import type { Redis } from 'ioredis';
import { redlockKey } from '../../src/locks/redis/keys.js';
import { STOCK_LOCK_RESOURCE } from '../../src/stock/product.js';
import { pollUntil } from '../../src/time.js';
import { runCase, type Verdict } from '../case.js';
import { instance } from '../cluster-ops.js';
import { isSold, outcomeKey, type Sent } from '../client.js';
import { freezeHolder, holderText } from '../holder.js';
import { resume } from '../process-state.js';
import { waitRedlockConnected } from '../redlock-masters.js';
import { splitVote } from '../redlock-split.js';
import { redisAt } from '../replication.js';
import { isRefusal } from '../../src/http/answers.js';
import { isSafe, type FaultRow } from '../row.js';
import type { FaultContext, Scenario } from '../scenario.js';

const KEY = redlockKey(STOCK_LOCK_RESOURCE);
/** A's lease: far longer than the case's steps while A is frozen (about 2 s), so A is within its validity throughout. */
const TTL_MS = 6_000;
const B_WAIT_MS = 1_500;

interface JumpVariant {
  name: string;
  /** Masters down while A acquires (A holds the others). */
  downAtAcquire: readonly number[];
  /** Masters whose clock jumps past A's lease. */
  jumped: readonly number[];
  expectDoubleGrant: boolean;
}

export const JUMPS: readonly JumpVariant[] = [
  { name: 'A on 3 of 5, a jump on 1 of them', downAtAcquire: [3, 4], jumped: [2], expectDoubleGrant: true },
  { name: 'A on 5 of 5, a jump on 3', downAtAcquire: [], jumped: [0, 1, 2], expectDoubleGrant: true },
  { name: 'A on 5 of 5, a jump on 2', downAtAcquire: [], jumped: [0, 1], expectDoubleGrant: false },
];

async function onMasters<T>(ctx: FaultContext, indices: readonly number[], body: (m: Redis, i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(
    indices.map(async (i) => {
      const server = ctx.cluster.servers.redlock[i];
      if (!server) throw new Error(`no RedLock master ${i}`);
      const client = await redisAt(ctx.cluster, server.port);
      try {
        return await body(client, i);
      } finally {
        client.disconnect();
      }
    }),
  );
}

const ALL = [0, 1, 2, 3, 4] as const;

/** Which instance's value each master holds now ("A", "B", "-"), by the owner of the value A's and B's grants left. */
async function votes(ctx: FaultContext, a: string | undefined, b: string | undefined): Promise<string> {
  const values = await onMasters(ctx, ALL, (m) => m.get(KEY));
  return values.map((v) => (v === null ? '-' : v === a ? 'A' : v === b ? 'B' : '?')).join('');
}

export async function jumpCase(ctx: FaultContext, v: JumpVariant): Promise<FaultRow> {
  const key = { scenario: 'redlock-clock', strategy: 'redlock', variant: v.name, store: 'mysql' as const };
  return runCase(ctx, key, ctx.sizes.initial, async (c): Promise<Verdict> => {
    const [aAt, bAt] = [instance(ctx.cluster, 0), instance(ctx.cluster, 1)];
    const masters = ctx.cluster.servers.redlock;
    try {
      await Promise.all(v.downAtAcquire.map((i) => masters[i]!.kill()));
      await waitRedlockConnected(ctx.cluster, aAt.server.port);
      const a = await freezeHolder(c, aAt, { pause: 'after-acquire', ttlMs: TTL_MS });
      if (!a.frozen) return { expected: 'A stops at pause=after-acquire', holds: () => false, details: [holderText(a.answer, 'A')] };
      const aValue =
        (
          await onMasters(
            ctx,
            ALL.filter((i) => !v.downAtAcquire.includes(i)),
            (m) => m.get(KEY),
          )
        ).find((x) => x !== null) ?? undefined;
      // The jump: each jumped master's clock passes A's expiry, so it drops A's key now.
      await onMasters(ctx, v.jumped, (m) => m.pexpire(KEY, 1));
      const dropped = await pollUntil(async () => (await onMasters(ctx, v.jumped, (m) => m.exists(KEY))).every((n) => n === 0), 2_000, 5);
      if (!dropped) throw new Error("the jumped masters still hold A's key");
      for (const i of v.downAtAcquire) await masters[i]!.start();
      await waitRedlockConnected(ctx.cluster, bAt.server.port);
      const b = await freezeHolder(c, bAt, { pause: 'before-write', ttlMs: TTL_MS, waitMs: B_WAIT_MS });
      const bValue = b.frozen ? ((await onMasters(ctx, ALL, (m) => m.get(KEY))).find((x) => x !== null && x !== aValue) ?? undefined) : undefined;
      const afterB = await votes(ctx, aValue, bValue);
      // A writes (still within its validity: its lease is TTL_MS), then B writes the count it read before A's write.
      resume(a.pid);
      const answers: Sent[] = [await a.answer];
      if (b.frozen) {
        resume(b.pid);
        answers.push(await b.answer);
      } else answers.push(b.answer);
      const holders = answers.filter((s) => isSold(s.outcome)).length;
      const bKey = outcomeKey(answers[1]!.outcome);
      return {
        expected: v.expectDoubleGrant
          ? `B gets 3 of 5 while A is within its validity: 2 holders, 1 unit oversold (no fencing token to refuse A's or B's write)`
          : 'B gets at most 2 of 5 and is refused (a 503): 1 holder, nothing oversold',
        details: [
          `jump stood in for by PEXPIRE 1 on master(s) ${v.jumped.join(', ')} (libfaketime cannot start redis-server 7.0)`,
          `masters 0–4 after B's attempt: ${afterB} (A: A's value, B: B's, -: none)`,
          holderText(answers[0]!, 'A (app-0)'),
          holderText(answers[1]!, 'B (app-1)'),
          `holders at once: ${holders}`,
        ],
        facts: { holders, votes: afterB },
        holds: (m) =>
          v.expectDoubleGrant
            ? holders === 2 && m.oversold === 1 && m.refusedButCommitted === 0 && m.undocumented === 0
            : isSafe(m) && holders === 1 && isRefusal(bKey),
      };
    } finally {
      for (const m of masters) if (m.pid === undefined) await m.start();
    }
  });
}

const SPLIT = { ttlMs: 2_000, retryMs: 50, boundMs: 3_000 };

export async function splitCase(ctx: FaultContext, jitter: boolean): Promise<FaultRow> {
  const key = { scenario: 'redlock-clock', strategy: 'redlock', variant: `split vote, 3 contenders, jitter ${jitter ? 'on' : 'off'}`, store: 'mysql' as const };
  return runCase(ctx, key, ctx.sizes.initial, async (): Promise<Verdict> => {
    const clients = await Promise.all(ctx.cluster.servers.redlock.map((s) => redisAt(ctx.cluster, s.port)));
    const splitKey = `${KEY}:split-vote`;
    try {
      const r = await splitVote(clients, { key: splitKey, ...SPLIT, jitter });
      const split = `first round ${JSON.stringify(r.firstRound)}`;
      const outcome = r.winner ? `${r.winner} won after ${r.ms} ms, ${r.attempts} attempts` : `nobody won in ${r.ms} ms, ${r.attempts} attempts`;
      return {
        expected: jitter ? `one contender wins (≤ ${SPLIT.boundMs} ms)` : `nobody wins within ${SPLIT.boundMs} ms: the same minorities every round`,
        details: [
          `the lab drives the RedLock round itself (SET NX PX on each master in the contender's own order, partial votes given back, retry after ${jitter ? `a random [0, ${SPLIT.retryMs})` : `exactly ${SPLIT.retryMs}`} ms)`,
          split,
          outcome,
        ],
        facts: { winner: r.winner ?? 'none', ms: r.ms, attempts: r.attempts },
        recoverMs: r.winner ? r.ms : null,
        recoverBoundMs: SPLIT.boundMs,
        holds: () => Object.values(r.firstRound).every((n) => n < 3) && (jitter ? r.winner !== undefined : r.winner === undefined),
      };
    } finally {
      await Promise.allSettled(clients.map((m) => m.del(splitKey)));
      for (const m of clients) m.disconnect();
    }
  });
}

export const redlockClock: Scenario = {
  name: 'redlock-clock',
  description:
    'RedLock and time (course §2.9, Kleppmann). A clock that jumps forward on a master expires the key there early; redis-server 7.0 will not start under libfaketime, so the jump is stood in for by PEXPIRE 1 on that master. ' +
    `A (app-0, ttlMs ${TTL_MS}) takes redlock and stops (pause=after-acquire); the jumped masters drop A's key; B (app-1, waitMs ${B_WAIT_MS}) asks and stops before its write if granted; A writes, then B. ` +
    'With A on exactly 3 of 5 (masters 3 and 4 down, back before B asks), a jump on one of the three gives B a majority; with A on all 5, a jump on 3 does, on 2 does not. RedLock has no fencing token, so both writes land. ' +
    `Split vote: three contenders reach the masters in their own orders and get 2, 2 and 1 votes; the lab drives their rounds itself: retrying in lockstep after ${SPLIT.retryMs} ms they split the same way each time (nobody wins in ${SPLIT.boundMs} ms); with RedlockLock's full jitter, one wins ("recover" is how long it took).`,
  async run(ctx) {
    const rows: FaultRow[] = [];
    if (!ctx.wants('redlock')) return rows;
    for (const v of JUMPS) rows.push(await jumpCase(ctx, v));
    for (const jitter of [false, true]) rows.push(await splitCase(ctx, jitter));
    return rows;
  },
};
