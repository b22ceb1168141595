// pg-session: PostgreSQL's advisory locks live in a database session, not in a request. Two faults:
// - the holder's backend terminated (pg_terminate_backend, as an operator or a failover ends a
//   session): the lock ends with the session at once and its transaction is rolled back. Found
//   before its read, the holder learns of it and refuses; frozen past its last check, its stale
//   write lands unless fenced (its token from stock_fence_seq);
// - the course-style session lock through a pool: a second request of the same instance handed the
//   pooled connection whose session holds the lock "takes" it again at once (session locks are
//   reentrant per session) while the first is still inside.
// Each step waits for the previous one to be seen in pg_locks or in the process table: sequenced.
import pg from 'pg';
import { advisoryKey, PG_LOCKS_KEY_MATCH } from '../../src/locks/pg/key.js';
import { SESSION_NAMESPACE } from '../../src/locks/pg/session-lock.js';
import { XACT_NAMESPACE } from '../../src/locks/pg/xact-lock.js';
import { STOCK_LOCK_RESOURCE } from '../../src/stock/product.js';
import { pollUntil } from '../../src/time.js';
import { runCase, type Verdict } from '../case.js';
import { instance } from '../cluster-ops.js';
import { outcomeKey, type CheckParams } from '../client.js';
import { answersText, freezeHolder, holderText, sellThrough } from '../holder.js';
import { resume } from '../process-state.js';
import { isSafe, type FaultRow } from '../row.js';
import type { FaultContext, Scenario } from '../scenario.js';

const SELLER_PARAMS = { ttlMs: 5_000, waitMs: 10_000 };
/** The first request's work in the pooled case: long enough for the second to come and go inside it. */
const FIRST_WORK_MS = 2_000;
/** How long PostgreSQL may take to show a change the lab made or a request caused. */
const SEEN_MS = 5_000;

type Variant = 'after-acquire' | 'before-write, unfenced' | 'before-write, fenced';

function withPostgres<T>(ctx: FaultContext, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const login = ctx.cluster.info.postgres;
  if (!login) throw new Error('this cluster has no PostgreSQL');
  const client = new pg.Client({ ...login, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  return client.connect().then(() => use(client).finally(() => client.end().catch(() => undefined)));
}

/** The backends holding the advisory lock `namespace` takes on the stock. */
async function holders(client: pg.Client, namespace: string): Promise<number[]> {
  const key = advisoryKey(namespace, STOCK_LOCK_RESOURCE).toString();
  const res = await client.query<{ pid: number }>(`SELECT pid FROM pg_locks WHERE ${PG_LOCKS_KEY_MATCH} AND granted`, [key]);
  return res.rows.map((r) => r.pid);
}

async function oneHolder(client: pg.Client, namespace: string): Promise<number> {
  let seen: number[] = [];
  const ok = await pollUntil(async () => (seen = await holders(client, namespace)).length === 1, SEEN_MS, 10);
  if (!ok) throw new Error(`pg_locks showed ${seen.length} holders of the ${namespace} key, not 1`);
  return seen[0] as number;
}

/** The holder stops at its hook; the lab terminates its lock's backend; others sell N; then it runs on. */
async function backendKilledCase(ctx: FaultContext, variant: Variant): Promise<FaultRow> {
  const strategy = 'pg-advisory-xact';
  const n = ctx.sizes.sell;
  const key = { scenario: 'pg-session', strategy, variant: `backend terminated ${variant}`, store: 'postgres' as const };
  return runCase(ctx, key, ctx.sizes.initial, (c) =>
    withPostgres(ctx, async (client): Promise<Verdict> => {
      const [holderAt, ...sellers] = [0, 1, 2].map((i) => instance(ctx.cluster, i));
      const fence: CheckParams = variant.endsWith(', fenced') ? { fenced: 1 } : {};
      const pause = variant === 'after-acquire' ? 'after-acquire' : 'before-write';
      const frozen = await freezeHolder(c, holderAt!, { ...fence, ...SELLER_PARAMS, pause });
      if (!frozen.frozen) return { expected: `the holder stops at pause=${pause}`, holds: () => false, details: [holderText(frozen.answer)] };
      const backend = await oneHolder(client, XACT_NAMESPACE);
      const ended = (await client.query<{ ended: boolean }>('SELECT pg_terminate_backend($1) AS ended', [backend])).rows[0]?.ended === true;
      const freed = await pollUntil(async () => (await holders(client, XACT_NAMESPACE)).length === 0, SEEN_MS, 10);
      const sold = await sellThrough(c, sellers, n, { ...fence, ...SELLER_PARAMS });
      resume(frozen.pid);
      const holder = await frozen.answer;
      const holderKey = outcomeKey(holder.outcome);
      const details = [
        `backend ${backend} terminated: ${ended}; the lock freed with its session: ${freed}`,
        holderText(holder),
        `sellers (app-1, app-2): ${answersText(sold)}`,
      ];
      const facts = { backendTerminated: ended, lockFreedWithSession: freed };
      const sellersSold = (m: { byRole: Record<string, Record<string, number>> }) => (m.byRole.sell?.['200'] ?? 0) === n;
      if (variant === 'after-acquire') {
        return {
          expected: 'the lock ends with the session at once; the holder learns of it before its write (503 lock_lost); nothing oversold',
          details,
          facts,
          holds: (m) => isSafe(m) && ended && freed && holderKey === '503 lock_lost' && sellersSold(m) && m.deducted === n,
        };
      }
      if (variant === 'before-write, unfenced') {
        return {
          expected: `past its last check the holder writes the count it read: oversold = N (${n})`,
          details,
          facts,
          holds: (m) => ended && freed && holderKey === '200' && m.oversold === n && m.undocumented === 0,
        };
      }
      return {
        expected: "fenced: the store refuses the holder's older token (503 fenced); nothing oversold",
        details,
        facts,
        holds: (m) => isSafe(m) && ended && freed && holderKey === '503 fenced' && m.deducted === n,
      };
    }),
  );
}

/**
 * pg-advisory-session through a pool: A (app-0) takes the lock and works FIRST_WORK_MS inside it;
 * its connection went back to the pool holding the lock. B (app-0 too) is handed that connection
 * (the pool hands out the one freed last) and is granted the lock at once; C (app-1) waits and is
 * refused. B sells; A writes the count it read: oversold 1.
 */
export async function pooledCase(ctx: FaultContext, strategy: 'pg-advisory-session' | 'pg-advisory-xact' = 'pg-advisory-session'): Promise<FaultRow> {
  const session = strategy === 'pg-advisory-session';
  const key = { scenario: 'pg-session', strategy, variant: 'two requests on one instance, one pool', store: 'postgres' as const };
  return runCase(ctx, key, ctx.sizes.initial, (c) =>
    withPostgres(ctx, async (client): Promise<Verdict> => {
      const [app0, app1] = [0, 1].map((i) => instance(ctx.cluster, i));
      const first = c.send(app0!, 'first', { ttlMs: 30_000, waitMs: 5_000, workMs: FIRST_WORK_MS });
      const holder = await oneHolder(client, session ? SESSION_NAMESPACE : XACT_NAMESPACE);
      const t0 = Date.now();
      const second = await c.send(app0!, 'second', { ttlMs: 30_000, waitMs: 200 });
      const insideMs = Date.now() - t0;
      const other = await c.send(app1!, 'other', { ttlMs: 30_000, waitMs: 200 });
      const firstSent = await first;
      const [firstKey, secondKey, otherKey] = [firstSent, second, other].map((s) => outcomeKey(s.outcome));
      const details = [
        `the lock held by session ${holder}`,
        holderText(firstSent, `first (app-0, workMs ${FIRST_WORK_MS})`),
        holderText(second, 'second (app-0, while the first works)'),
        holderText(other, 'other (app-1, while the first works)'),
      ];
      if (!session) {
        // The transaction-scoped lock: the holder's connection is inside its transaction, so the pool
        // hands the second request another session, which waits like any other and is refused.
        return {
          expected:
            'the second request on the same instance gets another session and waits like the other instance: both refused (503 lock_timeout); nothing oversold',
          details,
          facts: { secondAnsweredInMs: insideMs },
          holds: (m) => isSafe(m) && firstKey === '200' && secondKey === '503 lock_timeout' && otherKey === '503 lock_timeout',
        };
      }
      return {
        expected:
          'the second request on the same instance is handed the session that holds the lock and is granted it at once; the other instance is refused; both app-0 requests write what they read: oversold 1',
        details,
        facts: { secondAnsweredInMs: insideMs },
        holds: (m) =>
          firstKey === '200' && secondKey === '200' && insideMs < FIRST_WORK_MS && otherKey === '503 lock_timeout' && m.oversold === 1 && m.undocumented === 0,
      };
    }),
  );
}

export const pgSession: Scenario = {
  name: 'pg-session',
  description:
    "PostgreSQL's advisory locks belong to a database session. pg-advisory-xact: the holder (app-0) stops after acquiring (or before its write, past its last check), " +
    'the lab terminates the backend holding the lock (pg_terminate_backend), which frees it at once and rolls its transaction back, N units are sold through app-1 and app-2, then the holder runs: ' +
    'stopped before its read, it finds its session gone and refuses (503 lock_lost); stopped before its write, it writes the count it read (oversold = N) unless fenced=1, where the store refuses its token. ' +
    `pg-advisory-session (the course-style session lock): a first request on app-0 works ${FIRST_WORK_MS} ms inside the lock; a second on app-0 is handed the pooled connection whose session holds it and is granted it at once, ` +
    'while a request on app-1 is refused; both app-0 requests write what they read.',
  async run(ctx) {
    const rows: FaultRow[] = [];
    if (ctx.wants('pg-advisory-xact'))
      for (const v of ['after-acquire', 'before-write, unfenced', 'before-write, fenced'] as const) rows.push(await backendKilledCase(ctx, v));
    if (ctx.wants('pg-advisory-session')) rows.push(await pooledCase(ctx));
    return rows;
  },
};
