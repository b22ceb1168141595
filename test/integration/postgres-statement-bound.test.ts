// A PostgreSQL link that stops answering (a partition drops packets: no FIN, no RST), between the
// stock store and the shared cluster's PostgreSQL: the twin of mysql-statement-bound.test.ts. A
// proxy passes the client's bytes on, and from a chosen statement on drops everything the server
// sends back on that connection. Every call answers within the statement bound
// (PG_STATEMENT_TIMEOUT_MS), the connection given up on is never handed out again (a pool of one
// serves the next call), and the answer says what may have happened: outcome unknown once a COMMIT
// or an autocommit write was sent, a refusal when the transaction's COMMIT never was. The server's
// own state is read on a direct connection. Sequenced: the proxy mutes on the statement's text.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetStock } from '../../src/load/race.js';
import { openPostgresPool } from '../../src/db/postgres-pool.js';
import { DependencyDownError, OutcomeUnknownError } from '../../src/dependency.js';
import type { Lease } from '../../src/locks/lock.js';
import { advisoryKey } from '../../src/locks/pg/key.js';
import { PgAdvisoryXactLock, XACT_NAMESPACE } from '../../src/locks/pg/xact-lock.js';
import { PG_SQL, PostgresStock } from '../../src/stock/postgres-stock.js';
import { INITIAL_COUNT, PRODUCT_CODE, STOCK_CODE } from '../../src/stock/product.js';
import { pollUntil, sleep } from '../../src/time.js';
import { sharedCluster } from '../support/cluster.js';
import { MutingProxy, settled as settledWithin } from '../support/muting-proxy.js';

const cluster = sharedCluster();
/** The statement bound of the proxied store (PG_STATEMENT_TIMEOUT_MS), short for the test. */
const BOUND_MS = 1_000;
/** Far beyond the bound on a loaded machine: past it, the call hung (what it did before the bound). */
const HANG_MS = 15_000;
/** The proxied pool's sessions, as pg_stat_activity names them (to see them wait for a lock). */
const APP = 'stocklab-statement-bound-test';
/** The advisory lock's resource: this test's own, apart from the strategies'. */
const RESOURCE = 'statement-bound-test';

const settled = <T>(call: Promise<T>) => settledWithin(call, HANG_MS);

let proxy: MutingProxy;
let proxied: pg.Pool;
let direct: pg.Pool;
/** Through the proxy, a pool of ONE connection: a connection given up on and handed out again would hang the next call. */
let stock: PostgresStock;
/** What the server holds, read on connections of its own. */
let truth: PostgresStock;
let t0: number;

const deduct = (id: string, waitMs = 2_000) => stock.withRowLocked(waitMs, async (count) => ({ count: count - 1, result: 'deducted' as const }), id);

/** A session of its own that holds a lock in an open transaction until released. */
async function holdInTransaction(sql: string, params: unknown[]): Promise<{ release(): Promise<void> }> {
  const c = await direct.connect();
  await c.query('BEGIN');
  await c.query(sql, params);
  return {
    async release() {
      await c.query('ROLLBACK');
      c.release();
    },
  };
}

/** The proxied pool's sessions waiting for a lock on the server right now. */
async function lockWaiters(): Promise<number> {
  const r = await direct.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [
    APP,
  ]);
  return r.rows[0]?.n ?? 0;
}

beforeAll(async () => {
  t0 = Date.now();
  if (!cluster.postgres) throw new Error('the shared cluster has no PostgreSQL');
  proxy = await MutingProxy.start(cluster.postgres);
  proxied = openPostgresPool({ ...cluster.postgres, host: '127.0.0.1', port: proxy.port, poolSize: 1, statementTimeoutMs: BOUND_MS }, 1, APP);
  direct = openPostgresPool({ ...cluster.postgres, poolSize: 3 }, 3, `${APP}-direct`);
  stock = new PostgresStock(proxied);
  truth = new PostgresStock(direct);
});

afterAll(async () => {
  await proxied?.end();
  await direct?.end();
  await proxy?.close();
  await resetStock(cluster.nginx, INITIAL_COUNT);
  console.log(`[liveness] postgres-statement-bound: ${Date.now() - t0} ms in all`);
});

describe('a PostgreSQL statement whose answer never comes', () => {
  it('an UPDATE inside the transaction: a refusal (postgres_unavailable) within the bound, nothing applied, and the next call served', async () => {
    await truth.reset(10);
    proxy.muteOn(PG_SQL.write);
    const r = await settled(deduct('pg-bound-update'));
    proxy.muteOn(undefined);
    console.log(`[liveness] an UPDATE unanswered: ${String(r.error)} after ${r.ms} ms (statement bound ${BOUND_MS} ms)`);
    expect(r.error).toBeInstanceOf(DependencyDownError);
    expect(r.error).toMatchObject({ dependency: 'postgres' });
    // The session ended without its COMMIT: rolled back, once its row lock is free again.
    expect(await truth.withRowLocked(5_000, async (count) => ({ result: count }))).toBe(10);
    expect((await truth.sales())['pg-bound-update']).toBeUndefined();
    // The pool of one hands out a new connection, not the abandoned one.
    expect((await settled(stock.read())).value).toBe(10);
  });

  it('a COMMIT: 503 outcome_unknown within the bound; the sale is committed, and the next call served', async () => {
    await truth.reset(10);
    proxy.muteOn(PG_SQL.commit);
    const r = await settled(deduct('pg-bound-commit'));
    proxy.muteOn(undefined);
    console.log(`[liveness] a COMMIT unanswered: ${String(r.error)} after ${r.ms} ms (statement bound ${BOUND_MS} ms)`);
    expect(r.error).toBeInstanceOf(OutcomeUnknownError);
    expect(r.error).toMatchObject({ dependency: 'postgres' });
    expect(await pollUntil(async () => (await truth.read()) === 9, 5_000)).toBe(true);
    expect((await truth.sales())['pg-bound-commit']).toBe(1);
    expect((await settled(stock.read())).value).toBe(9);
  });

  it('an UPDATE under autocommit: 503 outcome_unknown, and the server did apply it', async () => {
    await truth.reset(10);
    proxy.muteOn(PG_SQL.write);
    const r = await settled(stock.write(7));
    proxy.muteOn(undefined);
    expect(r.error).toBeInstanceOf(OutcomeUnknownError);
    expect(await pollUntil(async () => (await truth.read()) === 7, 5_000)).toBe(true);
    expect((await settled(stock.read())).value).toBe(7);
  });
});

describe('a statement waiting for a lock under lock_timeout = waitMs', () => {
  it('FOR UPDATE may wait its waitMs beyond the statement bound: a lock wait is not a dead link', async () => {
    await truth.reset(10);
    const holder = await holdInTransaction(PG_SQL.selectForUpdate, [PRODUCT_CODE, STOCK_CODE]);
    let call: Promise<{ value?: string; error?: unknown; ms: number }> | undefined;
    try {
      call = settled(deduct('pg-bound-waits', 6_000));
      expect(await pollUntil(async () => (await lockWaiters()) >= 1, 5_000)).toBe(true);
      await sleep(2 * BOUND_MS); // held past the bound of a statement not allowed to wait
    } finally {
      await holder.release();
    }
    const r = await call;
    expect(r.error).toBeUndefined();
    expect(r.value).toBe('deducted');
    expect(await truth.read()).toBe(9);
  });

  it('pg_advisory_xact_lock may wait its waitMs beyond the statement bound too', async () => {
    const lock = new PgAdvisoryXactLock(proxied);
    const holder = await holdInTransaction('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryKey(XACT_NAMESPACE, RESOURCE).toString()]);
    let call: Promise<{ value?: Lease; error?: unknown; ms: number }> | undefined;
    try {
      call = settled(lock.acquire(RESOURCE, { waitMs: 6_000, ttlMs: 30_000, retryMs: 100, owner: 'statement-bound-test' }));
      expect(await pollUntil(async () => (await lockWaiters()) >= 1, 5_000)).toBe(true);
      await sleep(2 * BOUND_MS);
    } finally {
      await holder.release();
    }
    const r = await call;
    expect(r.error).toBeUndefined();
    await r.value?.release();
  });
});
