// TypeORM as its users use it: entities that map the migrated schema exactly, statements built by
// the QueryBuilder and listed by GET /strategies exactly as they are sent, and why TypeORM's own
// optimistic lock (a version check on SELECT) does not stop an oversell while the UPDATE's
// `WHERE version = ?` does. Runs against the shared cluster's MySQL; leaves the stock reset.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptimisticLockVersionMismatchError, type DataSource } from 'typeorm';
import { resetStock } from '../../src/load/race.js';
import { unitsLeft } from '../../src/cluster/stores.js';
import { createDataSource } from '../../src/db/data-source.js';
import { StockRow } from '../../src/db/entities/stock.js';
import { MysqlTableLock } from '../../src/locks/mysql/table-lock.js';
import { MysqlStock } from '../../src/stock/mysql-stock.js';
import { readThenWrite } from '../../src/stock/read-then-write.js';
import { INITIAL_COUNT, PRODUCT_CODE, STOCK_CODE } from '../../src/stock/product.js';
import { getJson } from '../support/lock-helpers.js';
import { sharedCluster } from '../support/cluster.js';
import { statementLogger } from '../support/statement-log.js';

const cluster = sharedCluster();
const ROW = { productCode: PRODUCT_CODE, stockCode: STOCK_CODE };

/**
 * The SQL as the driver gets it, written out: the lists in the code are built by the same
 * QueryBuilders that send the statements, so only a literal catches a change to a statement.
 */
const WHERE_ROW = 'WHERE `product_code` = ? AND `stock_code` = ?';
const SELECT_COUNT = 'SELECT `s`.`count` AS `count` FROM `db_stock` `s` WHERE `s`.`product_code` = ? AND `s`.`stock_code` = ?';
const SELECT_VERSIONED = 'SELECT `s`.`count` AS `count`, `s`.`version` AS `version` FROM `db_stock` `s` WHERE `s`.`product_code` = ? AND `s`.`stock_code` = ?';
const WRITE = 'UPDATE `db_stock` SET `count` = ?, `version` = `version` + 1 ' + WHERE_ROW;
const fenced = (column: string) => [
  'UPDATE `db_stock` SET `' + column + '` = ?, `version` = `version` + 1 ' + WHERE_ROW + ' AND `' + column + '` < ?',
  SELECT_COUNT,
  WRITE + ' AND `' + column + '` = ?',
];
const STOCK_SQL = {
  readThenWrite: [SELECT_COUNT, WRITE],
  readThenWriteFenced: {
    redis: fenced('fence_redis'),
    zookeeper: fenced('fence_zookeeper'),
    'lock-table': fenced('fence_lock_table'),
    etcd: fenced('fence_etcd'),
    postgres: fenced('fence_postgres'),
  },
  decrement: ['UPDATE `db_stock` SET `count` = `count` - 1, `version` = `version` + 1 ' + WHERE_ROW + ' AND `count` >= 1'],
  forUpdate: [
    'SET SESSION innodb_lock_wait_timeout = ?',
    'START TRANSACTION',
    SELECT_VERSIONED + ' FOR UPDATE',
    WRITE,
    'COMMIT',
    'SET SESSION innodb_lock_wait_timeout = DEFAULT',
  ],
  shareMode: [
    'SET SESSION innodb_lock_wait_timeout = ?',
    'START TRANSACTION',
    SELECT_VERSIONED + ' LOCK IN SHARE MODE',
    WRITE,
    'COMMIT',
    'SET SESSION innodb_lock_wait_timeout = DEFAULT',
  ],
  optimistic: [SELECT_VERSIONED, WRITE + ' AND `version` = ?'],
};
const LOCK_SQL = {
  peek: 'SELECT `l`.`expires_at` <= NOW(3) AS `expired` FROM `tb_lock` `l` WHERE `l`.`lock_name` = ?',
  reclaimExpired: 'DELETE FROM `tb_lock` WHERE `lock_name` = ? AND `expires_at` <= NOW(3)',
  insert: 'INSERT INTO `tb_lock`(`lock_name`, `owner`, `reentrant_count`, `expires_at`) VALUES (?, ?, ?, DATE_ADD(NOW(3), INTERVAL ? MICROSECOND))',
  reenter:
    'UPDATE `tb_lock` SET `reentrant_count` = `reentrant_count` + 1, `expires_at` = GREATEST(`expires_at`, DATE_ADD(NOW(3), INTERVAL ? MICROSECOND)) WHERE `lock_name` = ? AND `owner` = ? AND `expires_at` > NOW(3)',
  countDown: 'UPDATE `tb_lock` SET `reentrant_count` = `reentrant_count` - 1 WHERE `lock_name` = ? AND `owner` = ? AND `reentrant_count` > 1',
  deleteOwn: 'DELETE FROM `tb_lock` WHERE `lock_name` = ? AND `owner` = ? AND `reentrant_count` <= 1',
};
const LOCK_RELEASE = [LOCK_SQL.countDown, LOCK_SQL.deleteOwn];

/** Every statement this file's DataSource sends, as the driver gets it. */
const sent: string[] = [];
const recorder = statementLogger((query) => void sent.push(query));
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
  it('is what MysqlStock lists, statement for statement, and both are the SQL written out above', async () => {
    expect(stock.sql).toEqual(STOCK_SQL);
    await resetStock(cluster.nginx, 100);
    expect(await sentBy(() => stock.decrementIfAvailable())).toEqual(STOCK_SQL.decrement);
    expect(await sentBy(async () => stock.write((await stock.read()) - 1))).toEqual(STOCK_SQL.readThenWrite);
    expect(await sentBy(() => stock.withRowLocked(1_000, async (count) => ({ count: count - 1, result: 'deducted' })))).toEqual(STOCK_SQL.forUpdate);
    expect(await sentBy(() => stock.withRowLocked(1_000, async (count) => ({ count: count - 1, result: 'deducted' }), undefined, 'shared'))).toEqual(
      STOCK_SQL.shareMode,
    );
    expect(
      await sentBy(async () => {
        const row = await stock.readVersioned();
        expect(await stock.compareAndSet(row!.version, row!.count - 1)).toBe(true);
      }),
    ).toEqual(STOCK_SQL.optimistic);
    // Fenced, with a token one above the row's lock-table fence; the fence is put back after, so the
    // lock table's next grant (whose id may be that very number) is not refused by this test's claim.
    const { fence } = ((await ds.query('SELECT fence_lock_table AS fence FROM db_stock')) as { fence: string }[])[0]!;
    const token = BigInt(fence) + 1n;
    expect(await sentBy(() => readThenWrite(stock, 0, { fence: { source: 'lock-table', token } }))).toEqual(STOCK_SQL.readThenWriteFenced['lock-table']);
    await ds.query('UPDATE db_stock SET fence_lock_table = ?', [fence]);
    expect(await unitsLeft(cluster, 'mysql')).toBe(94);
  });

  it('is what MysqlTableLock lists: peek, reclaim only after an expired row, insert, then count down and delete at the release', async () => {
    const lock = new MysqlTableLock(ds);
    expect(lock.sql()).toEqual({ acquire: [LOCK_SQL.peek, LOCK_SQL.reclaimExpired, LOCK_SQL.insert], reenter: [LOCK_SQL.reenter], release: LOCK_RELEASE });
    const resource = 'test:sql-orm';
    const opts = { ttlMs: 5_000, waitMs: 2_000, retryMs: 10, owner: 'sql-orm-test' };
    const held = await sentBy(async () => (await lock.acquire(resource, opts)).release());
    expect(held).toEqual([LOCK_SQL.peek, LOCK_SQL.insert, ...LOCK_RELEASE]);
    // A crashed holder's row, its lease over: the peek sees it expired, and the reclaim frees the name.
    await ds.query("INSERT INTO tb_lock (lock_name, owner, expires_at) VALUES (?, 'crashed', NOW(3) - INTERVAL 1 SECOND)", [resource]);
    const reclaimed = await sentBy(async () => (await lock.acquire(resource, opts)).release());
    expect(reclaimed).toEqual([LOCK_SQL.peek, LOCK_SQL.reclaimExpired, LOCK_SQL.insert, ...LOCK_RELEASE]);
  });

  it('is listed per strategy by GET /strategies', async () => {
    const { body } = await getJson(`${cluster.nginx}/strategies`);
    const sql = Object.fromEntries((body.strategies as { name: string; sql?: string[] }[]).map((s) => [s.name, s.sql]));
    expect(sql['sql-update']).toEqual(STOCK_SQL.decrement);
    expect(sql['sql-for-update']).toEqual(STOCK_SQL.forUpdate);
    expect(sql['sql-optimistic']).toEqual(STOCK_SQL.optimistic);
    expect(sql['mysql-lock-table']).toEqual([LOCK_SQL.peek, LOCK_SQL.reclaimExpired, LOCK_SQL.insert, ...STOCK_SQL.readThenWrite, ...LOCK_RELEASE]);
    for (const name of ['none', 'mutex', 'redis-setnx', 'redlock', 'zk-watch']) expect(sql[name], name).toEqual(STOCK_SQL.readThenWrite);
    for (const name of ['redis-watch', 'redis-lua-decr']) expect(sql[name], name).toBeUndefined();
  });
});

describe('optimistic locking with TypeORM', () => {
  /** TypeORM's optimistic lock: getOne() throws when the row's version is not `version`. A check on SELECT only. */
  const readChecked = (version: number) =>
    ds
      .getRepository(StockRow)
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
