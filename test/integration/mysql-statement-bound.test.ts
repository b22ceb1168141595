// A MySQL link that stops answering (a partition drops packets: no FIN, no RST), between the stock
// store and the shared cluster's MySQL: a proxy passes the client's bytes on, and from a chosen
// statement on drops everything the server sends back on that connection. Every call answers
// within the statement bound, the connection given up on is never handed out again (a pool of one
// serves the next call), and the answer says what may have happened: outcome unknown once a COMMIT
// or an autocommit write was sent, a refusal when the transaction's COMMIT never was. The server's
// own state is read on a direct connection. Sequenced: the proxy mutes on the statement's text.
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetStock } from '../../src/load/race.js';
import { createDataSource } from '../../src/db/data-source.js';
import { DependencyDownError, OutcomeUnknownError } from '../../src/dependency.js';
import { MysqlStock } from '../../src/stock/mysql-stock.js';
import { INITIAL_COUNT } from '../../src/stock/product.js';
import { pollUntil, sleep } from '../../src/time.js';
import { sharedCluster } from '../support/cluster.js';
import { MutingProxy, settled as settledWithin } from '../support/muting-proxy.js';
import { holdRowLock } from '../support/row-lock.js';

const cluster = sharedCluster();
/** The statement bound of the proxied store (MYSQL_STATEMENT_TIMEOUT_MS), short for the test. */
const BOUND_MS = 1_000;
/** Far beyond the bound on a loaded machine: past it, the call hung (what it did before the bound). */
const HANG_MS = 15_000;

/** The call's outcome, or a failure naming the hang if it has none within HANG_MS. */
const settled = <T>(call: Promise<T>) => settledWithin(call, HANG_MS);

let proxy: MutingProxy;
let proxied: DataSource;
let direct: DataSource;
/** Through the proxy, a pool of ONE connection: a connection given up on and handed out again would hang the next call. */
let stock: MysqlStock;
/** What the server holds, read on a connection of its own. */
let truth: MysqlStock;

const deduct = (id: string, waitMs = 2_000) => stock.withRowLocked(waitMs, async (count) => ({ count: count - 1, result: 'deducted' as const }), id);

beforeAll(async () => {
  proxy = await MutingProxy.start(cluster.mysql);
  proxied = await createDataSource({
    ...cluster.mysql,
    host: '127.0.0.1',
    port: proxy.port,
    poolSize: 1,
    connectTimeoutMs: 5_000,
    statementTimeoutMs: BOUND_MS,
  }).initialize();
  direct = await createDataSource({ ...cluster.mysql, poolSize: 2, connectTimeoutMs: 5_000 }).initialize();
  stock = new MysqlStock(proxied);
  truth = new MysqlStock(direct);
});

afterAll(async () => {
  await proxied?.destroy();
  await direct?.destroy();
  await proxy?.close();
  await resetStock(cluster.nginx, INITIAL_COUNT);
});

describe('a MySQL statement whose answer never comes', () => {
  it('a COMMIT: 503 outcome_unknown within the bound; the sale is committed, and /sales shows it', async () => {
    await truth.reset(10);
    proxy.muteOn('COMMIT');
    const r = await settled(deduct('bound-commit'));
    proxy.muteOn(undefined);
    console.log(`[liveness] a COMMIT unanswered: ${String(r.error)} after ${r.ms} ms (statement bound ${BOUND_MS} ms)`);
    expect(r.error).toBeInstanceOf(OutcomeUnknownError);
    expect(await truth.read()).toBe(9);
    expect((await truth.sales())['bound-commit']).toBe(1);
    // The pool of one hands out a new connection, not the abandoned one.
    expect((await settled(stock.read())).value).toBe(9);
  });

  it('an UPDATE inside the transaction: a refusal (mysql_unavailable), and nothing applied', async () => {
    await truth.reset(10);
    proxy.muteOn('UPDATE `db_stock`');
    const r = await settled(deduct('bound-update'));
    proxy.muteOn(undefined);
    expect(r.error).toBeInstanceOf(DependencyDownError);
    expect(r.error).toMatchObject({ dependency: 'mysql' });
    // The session ended without its COMMIT: rolled back once the row lock is free again.
    expect(await truth.withRowLocked(5_000, async (count) => ({ result: count }))).toBe(10);
    expect((await truth.sales())['bound-update']).toBeUndefined();
    expect((await settled(stock.read())).value).toBe(10);
  });

  it('an UPDATE under autocommit: 503 outcome_unknown, and the server did apply it', async () => {
    await truth.reset(10);
    proxy.muteOn('UPDATE `db_stock`');
    const r = await settled(stock.write(7));
    proxy.muteOn(undefined);
    expect(r.error).toBeInstanceOf(OutcomeUnknownError);
    expect(await pollUntil(async () => (await truth.read()) === 7, 5_000)).toBe(true);
    expect((await settled(stock.read())).value).toBe(7);
  });

  it('the SET after a committed sale: the sale is answered (200), never refused', async () => {
    await truth.reset(10);
    proxy.muteOn('innodb_lock_wait_timeout = DEFAULT');
    const r = await settled(deduct('bound-restore'));
    proxy.muteOn(undefined);
    expect(r.error).toBeUndefined();
    expect(r.value).toBe('deducted');
    expect((await truth.sales())['bound-restore']).toBe(1);
    expect((await settled(stock.read())).value).toBe(9);
  });
});

describe('a locking read waiting for the row lock', () => {
  it('may wait its waitMs on the server beyond the statement bound: a lock wait is not a dead link', async () => {
    await truth.reset(10);
    const holder = await holdRowLock(cluster.mysql);
    let call: Promise<{ value?: string; error?: unknown; ms: number }> | undefined;
    try {
      call = settled(deduct('bound-waits', 6_000));
      expect(await pollUntil(async () => (await holder.lockWaits()) >= 1, 5_000)).toBe(true);
      await sleep(2 * BOUND_MS); // held past the bound of a statement not allowed to wait
    } finally {
      await holder.release();
    }
    const r = await call;
    expect(r.error).toBeUndefined();
    expect(r.value).toBe('deducted');
    expect(await truth.read()).toBe(9);
  });
});
