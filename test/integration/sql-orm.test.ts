// TypeORM as its users use it: entities that map the migrated schema exactly, statements built by
// the QueryBuilder and listed by GET /strategies exactly as they are sent, and why TypeORM's own
// optimistic lock (a version check on SELECT) does not stop an oversell while the UPDATE's
// `WHERE version = ?` does. Runs against the shared cluster's MySQL; leaves the stock reset.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptimisticLockVersionMismatchError, type DataSource, type Logger } from 'typeorm';
import { resetStock } from '../../bench/race.js';
import { unitsLeft } from '../../bench/stores.js';
import { createDataSource } from '../../src/db/data-source.js';
import { StockRow } from '../../src/db/entities/stock.js';
import { MysqlTableLock } from '../../src/locks/mysql/table-lock.js';
import { MysqlStock } from '../../src/stock/mysql-stock.js';
import { readThenWrite } from '../../src/stock/read-then-write.js';
import { INITIAL_COUNT, PRODUCT_CODE, STOCK_CODE } from '../../src/stock/product.js';
import { getJson } from '../support/lock-helpers.js';
import { sharedCluster } from '../support/cluster.js';

const cluster = sharedCluster();
const ROW = { productCode: PRODUCT_CODE, stockCode: STOCK_CODE };

/** Every statement this file's DataSource sends, as the driver gets it. */
const sent: string[] = [];
const recorder: Logger = {
  logQuery: (query) => void sent.push(query),
  logQueryError: () => undefined,
  logQuerySlow: () => undefined,
  logSchemaBuild: () => undefined,
  logMigration: () => undefined,
  log: () => undefined,
};
/** The statements `run` sends. */
async function sentBy(run: () => Promise<unknown>): Promise<string[]> {
  sent.length = 0;
  await run();
  return [...sent];
}

let ds: DataSource;
let stock: MysqlStock;

beforeAll(async () => {
  ds = createDataSource({ ...cluster.mysql, poolSize: 4, connectTimeoutMs: 5_000 }).setOptions({ logger: recorder });
  await ds.initialize();
  stock = new MysqlStock(ds);
});

afterAll(async () => {
  await ds?.destroy();
  await resetStock(cluster.nginx, INITIAL_COUNT);
});

describe('the entities', () => {
  it('map the schema the migrations created: TypeORM would change nothing but the version column type', async () => {
    const diff = await ds.driver.createSchemaBuilder().log();
    // @VersionColumn is always the driver's version type, INT on MySQL, whatever its `type` says
    // (typeorm/typeorm#2676), so a synchronize would turn db_stock.version (BIGINT) into an INT.
    // synchronize is off and the migrations define the schema; any other difference fails here.
    expect(diff.upQueries.map((q) => q.query)).toEqual([
      'ALTER TABLE `db_stock` DROP COLUMN `version`',
      "ALTER TABLE `db_stock` ADD `version` int NOT NULL DEFAULT '0'",
    ]);
  });
});

describe('the SQL each deduction sends', () => {
  it('is what MysqlStock lists, statement for statement', async () => {
    await resetStock(cluster.nginx, 100);
    expect(await sentBy(() => stock.decrementIfAvailable())).toEqual(stock.sql.decrement);
    expect(await sentBy(async () => stock.write((await stock.read()) - 1))).toEqual(stock.sql.readThenWrite);
    expect(await sentBy(() => stock.withRowLocked(1_000, async (count) => ({ count: count - 1, result: 'deducted' })))).toEqual(stock.sql.forUpdate);
    expect(await sentBy(() => stock.withRowLocked(1_000, async (count) => ({ count: count - 1, result: 'deducted' }), undefined, 'shared'))).toEqual(stock.sql.shareMode);
    expect(await sentBy(async () => {
      const row = await stock.readVersioned();
      expect(await stock.compareAndSet(row!.version, row!.count - 1)).toBe(true);
    })).toEqual(stock.sql.optimistic);
    // Fenced, with a token one above the row's lock-table fence; the fence is put back after, so the
    // lock table's next grant (whose id may be that very number) is not refused by this test's claim.
    const { fence } = ((await ds.query('SELECT fence_lock_table AS fence FROM db_stock')) as { fence: string }[])[0]!;
    const token = BigInt(fence) + 1n;
    expect(await sentBy(() => readThenWrite(stock, 0, { fence: { source: 'lock-table', token } }))).toEqual(stock.sql.readThenWriteFenced['lock-table']);
    await ds.query('UPDATE db_stock SET fence_lock_table = ?', [fence]);
    expect(await unitsLeft(cluster, 'mysql')).toBe(94);
  });

  it('is what MysqlTableLock lists: peek, insert, then count down and delete at the release', async () => {
    const lock = new MysqlTableLock(ds);
    const [peek, , insert] = lock.sql().acquire;
    const held = await sentBy(async () => {
      const lease = await lock.acquire('test:sql-orm', { ttlMs: 5_000, waitMs: 2_000, retryMs: 10, owner: 'sql-orm-test' });
      await lease.release();
    });
    expect(held).toEqual([peek, insert, ...lock.sql().release]);
  });

  it('is listed per strategy by GET /strategies', async () => {
    const { body } = await getJson(`${cluster.nginx}/strategies`);
    const sql = Object.fromEntries((body.strategies as { name: string; sql?: string[] }[]).map((s) => [s.name, s.sql]));
    const lock = new MysqlTableLock(ds).sql();
    expect(sql['sql-update']).toEqual(stock.sql.decrement);
    expect(sql['sql-for-update']).toEqual(stock.sql.forUpdate);
    expect(sql['sql-optimistic']).toEqual(stock.sql.optimistic);
    expect(sql['mysql-lock-table']).toEqual([...lock.acquire, ...stock.sql.readThenWrite, ...lock.release]);
    for (const name of ['none', 'mutex', 'redis-setnx', 'redlock', 'zk-watch']) expect(sql[name], name).toEqual(stock.sql.readThenWrite);
    for (const name of ['redis-watch', 'redis-lua-decr']) expect(sql[name], name).toBeUndefined();
  });
});

describe('optimistic locking with TypeORM', () => {
  /** TypeORM's optimistic lock: getOne() throws when the row's version is not `version`. A check on SELECT only. */
  const readChecked = (version: number) =>
    ds.getRepository(StockRow)
      .createQueryBuilder('s')
      .where('s.productCode = :productCode AND s.stockCode = :stockCode', ROW)
      .setLock('optimistic', version)
      .getOne();

  it("setLock('optimistic') alone loses an update: two readers of one version both pass its check and both write", async () => {
    await resetStock(cluster.nginx, 11);
    // One sale first: TypeORM skips its check for a falsy version (only a fresh row has 0; a reset bumps it).
    await stock.decrementIfAvailable();
    const { version } = await ds.getRepository(StockRow).findOneByOrFail(ROW);
    expect(version).toBeGreaterThan(0);
    // Two requests interleaved as they are under load: both read before either writes.
    const a = await readChecked(version);
    const b = await readChecked(version);
    // Both passed the check (no throw), so both sell, each writing the count it read minus one.
    await ds.getRepository(StockRow).update(ROW, { count: a!.count - 1 });
    await ds.getRepository(StockRow).update(ROW, { count: b!.count - 1 });
    // Two units sold, one left the store: oversold by one.
    expect(await unitsLeft(cluster, 'mysql')).toBe(9);
    // The check works only for a read made after the write, which is not where the race is.
    await expect(readChecked(version)).rejects.toBeInstanceOf(OptimisticLockVersionMismatchError);
  });

  it("the UPDATE's WHERE version = ? (sql-optimistic) lets only the first of the same two writes through", async () => {
    await resetStock(cluster.nginx, 10);
    const a = await stock.readVersioned();
    const b = await stock.readVersioned();
    expect(a).toEqual(b);
    expect(await stock.compareAndSet(a!.version, a!.count - 1)).toBe(true);
    // 0 rows affected: the version moved on; sql-optimistic reads again and retries.
    expect(await stock.compareAndSet(b!.version, b!.count - 1)).toBe(false);
    expect(await unitsLeft(cluster, 'mysql')).toBe(9);
  });
});
