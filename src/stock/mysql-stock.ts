import type { DataSource, EntityManager, SelectQueryBuilder, UpdateQueryBuilder } from 'typeorm';
import { onConnection, type StatementBound } from '../db/connections.js';
import { callDependency, callDependencyWrite } from '../dependency.js';
import { SaleRow } from '../db/entities/sale.js';
import { StockRow } from '../db/entities/stock.js';
import { FENCE_SOURCES, type Fence, type FenceSource } from '../fencing.js';
import { PRODUCT_CODE, STOCK_CODE } from './product.js';
import type { SaleId, StockStore } from './store.js';

/** The one row, by what it is (product, warehouse): the unique key of db_stock. */
const ROW = { productCode: PRODUCT_CODE, stockCode: STOCK_CODE };
const WHERE_ROW = 'productCode = :productCode AND stockCode = :stockCode';

interface CountRow {
  count: number;
  version: number;
}

/** Each token source's fence: its property on StockRow and its column (for the raw conditions). */
type FenceProperty = 'fenceRedis' | 'fenceZookeeper' | 'fenceLockTable' | 'fenceEtcd' | 'fencePostgres';
const FENCE_COLUMNS: Record<FenceSource, { property: FenceProperty; column: string }> = {
  redis: { property: 'fenceRedis', column: 'fence_redis' },
  zookeeper: { property: 'fenceZookeeper', column: 'fence_zookeeper' },
  'lock-table': { property: 'fenceLockTable', column: 'fence_lock_table' },
  etcd: { property: 'fenceEtcd', column: 'fence_etcd' },
  postgres: { property: 'fencePostgres', column: 'fence_postgres' },
};

/**
 * The statements, one builder each. The deductions run them and `MysqlStock.sql` lists them with
 * `getSql()`, from the same builders, so the list cannot drift from what is sent. An UPDATE through
 * the QueryBuilder also bumps the @VersionColumn (`version = version + 1`) unless it sets `version`
 * itself: every change to the row gets a new version, whichever strategy made it.
 */
const statements = {
  /** The read of read-then-write: the count alone. */
  selectCount: (m: EntityManager) =>
    m.getRepository(StockRow).createQueryBuilder('s').select('s.count', 'count').where('s.productCode = :productCode AND s.stockCode = :stockCode', ROW),
  /** The count and the version it was read at (the optimistic read, and FOR UPDATE's). */
  selectVersioned: (m: EntityManager) => statements.selectCount(m).addSelect('s.version', 'version'),
  /** The row's exclusive lock until the transaction ends: SELECT … FOR UPDATE. */
  selectForUpdate: (m: EntityManager) => statements.selectVersioned(m).setLock('pessimistic_write'),
  /**
   * The row's shared lock until the transaction ends: SELECT … LOCK IN SHARE MODE (course §1.7.2's
   * other read). Spelled out: TypeORM's pessimistic_read writes FOR SHARE for any server whose
   * version reads 8 or more, MariaDB 10 included, which has no FOR SHARE.
   */
  selectShared: (m: EntityManager) => {
    const [sql, params] = statements.selectVersioned(m).getQueryAndParameters();
    return { sql: `${sql}${SHARE_MODE}`, params };
  },
  /** The write of read-then-write: overwrites the count. */
  write: (m: EntityManager, count: number) => updateRow(m, { count }),
  /** Sets the count; the version moves on like any change (never back to 0, which would let a stale optimistic read pass: ABA). */
  reset: (m: EntityManager, count: number) => updateRow(m, { count }),
  /** One statement that checks and decrements: the database serializes it on the row. */
  decrement: (m: EntityManager) => updateRow(m, { count: () => 'count - 1' }).andWhere('count >= 1'),
  /** The optimistic write: only if nobody changed the row since `version` was read. */
  compareAndSet: (m: EntityManager, version: number, count: number) => updateRow(m, { count }).andWhere('version = :version', { version }),
  /** Fencing, before the read: raise the source's fence to the token, only if it is larger. */
  claim: (m: EntityManager, fence: Fence) => {
    const { property, column } = FENCE_COLUMNS[fence.source];
    return updateRow(m, { [property]: fence.token.toString() }).andWhere(`${column} < :token`, { token: fence.token.toString() });
  },
  /** Fencing, the write: only while the fence is still this token. */
  writeFenced: (m: EntityManager, fence: Fence, count: number) =>
    updateRow(m, { count }).andWhere(`${FENCE_COLUMNS[fence.source].column} = :token`, { token: fence.token.toString() }),
  recordSale: (m: EntityManager, requestId: string) => m.createQueryBuilder().insert().into(SaleRow, ['requestId']).values({ requestId }).updateEntity(false),
  salesByRequest: (m: EntityManager) =>
    m.getRepository(SaleRow).createQueryBuilder('s').select('s.requestId', 'requestId').addSelect('COUNT(*)', 'n').groupBy('s.requestId'),
  clearSales: (m: EntityManager) => m.createQueryBuilder().delete().from(SaleRow),
};

const SHARE_MODE = ' LOCK IN SHARE MODE';

type RowChange = Partial<Record<FenceProperty, string>> & { count?: number | (() => string) };

function updateRow(m: EntityManager, set: RowChange): UpdateQueryBuilder<StockRow> {
  return m.createQueryBuilder().update(StockRow).set(set).where(WHERE_ROW, ROW);
}

/** Runs a change; true when it matched the row. */
async function changed(qb: UpdateQueryBuilder<StockRow>): Promise<boolean> {
  return (await qb.execute()).affected === 1;
}

/** The statements TypeORM's transaction() and the lock-wait bound send around FOR UPDATE's. */
const START = 'START TRANSACTION';
const SET_LOCK_WAIT = 'SET SESSION innodb_lock_wait_timeout = ?';
const COMMIT = 'COMMIT';
const RESTORE_LOCK_WAIT = 'SET SESSION innodb_lock_wait_timeout = DEFAULT';
/** How long a deduction waits for a free pooled connection by default. */
const DEFAULT_ACQUIRE_MS = 5_000;

/** True when MySQL gave up waiting for a row lock (innodb_lock_wait_timeout), also when TypeORM wraps the error. */
export function isLockWaitTimeout(err: unknown): boolean {
  const e = err as { code?: unknown; driverError?: { code?: unknown } } | undefined;
  return (e?.code ?? e?.driverError?.code) === 'ER_LOCK_WAIT_TIMEOUT';
}

/** True when InnoDB rolled the transaction back as a deadlock's victim, also when TypeORM wraps the error. */
export function isDeadlock(err: unknown): boolean {
  const e = err as { code?: unknown; driverError?: { code?: unknown } } | undefined;
  return (e?.code ?? e?.driverError?.code) === 'ER_LOCK_DEADLOCK';
}

/** InnoDB picked the deduction's transaction as a deadlock victim and rolled it back: nothing was written. */
export class DeadlockError extends Error {
  constructor(what: string) {
    super(`${what}: rolled back as a deadlock victim`);
  }
}

/** How a locking read holds the row: FOR UPDATE (exclusive), or LOCK IN SHARE MODE (shared, upgraded by the write). */
export type RowLockMode = 'exclusive' | 'shared';

/** The db_stock row through its entity, and every statement the deductions run on it. */
export class MysqlStock implements StockStore {
  /**
   * The SQL each deduction sends, in order, as the driver gets it (`?` for every parameter), for
   * GET /strategies. Needs an initialized DataSource (the entity metadata).
   */
  readonly sql: {
    /** read-then-write on the row, the deduction every lock strategy guards */
    readonly readThenWrite: readonly string[];
    /** the same with fenced=1, per token source: claim, read, write while the claim stands */
    readonly readThenWriteFenced: Readonly<Record<FenceSource, readonly string[]>>;
    readonly decrement: readonly string[];
    readonly forUpdate: readonly string[];
    readonly shareMode: readonly string[];
    readonly optimistic: readonly string[];
  };

  /** `acquireMs`: the longest wait for a pooled connection (see db/connections.ts). */
  constructor(
    private readonly db: DataSource,
    private readonly acquireMs = DEFAULT_ACQUIRE_MS,
  ) {
    const m = db.manager;
    this.sql = {
      readThenWrite: [statements.selectCount(m).getSql(), statements.write(m, 0).getSql()],
      readThenWriteFenced: Object.fromEntries(
        FENCE_SOURCES.map((source) => {
          const fence = { source, token: 0n };
          return [source, [statements.claim(m, fence).getSql(), statements.selectCount(m).getSql(), statements.writeFenced(m, fence, 0).getSql()]];
        }),
      ) as Record<FenceSource, string[]>,
      decrement: [statements.decrement(m).getSql()],
      forUpdate: [SET_LOCK_WAIT, START, statements.selectForUpdate(m).getSql(), statements.write(m, 0).getSql(), COMMIT, RESTORE_LOCK_WAIT],
      shareMode: [SET_LOCK_WAIT, START, statements.selectShared(m).sql, statements.write(m, 0).getSql(), COMMIT, RESTORE_LOCK_WAIT],
      optimistic: [statements.selectVersioned(m).getSql(), statements.compareAndSet(m, 0, 0).getSql()],
    };
  }

  read(): Promise<number> {
    return this.mysql(async (m) => (await readRow(statements.selectCount(m)))?.count ?? 0);
  }

  /** Whether MySQL answers within `waitMs`, a free connection included (GET /health). */
  async reachable(waitMs: number): Promise<boolean> {
    return this.mysql((m) => m.query('SELECT 1'), waitMs).then(
      () => true,
      () => false,
    );
  }

  write(count: number, sale?: SaleId): Promise<void> {
    return this.mysqlWrite(async (m) => void (await withSale(m, sale, (tx) => changed(statements.write(tx, count)))));
  }

  claim(fence: Fence): Promise<boolean> {
    return this.mysql((m) => changed(statements.claim(m, fence)));
  }

  writeFenced(fence: Fence, count: number, sale?: SaleId): Promise<boolean> {
    return this.mysqlWrite((m) => withSale(m, sale, (tx) => changed(statements.writeFenced(tx, fence, count))));
  }

  reset(count: number): Promise<void> {
    return this.mysql((m) =>
      m.transaction(async (tx) => {
        await statements.reset(tx, count).execute();
        await statements.clearSales(tx).execute();
      }),
    );
  }

  async sales(): Promise<Record<string, number>> {
    const rows = await this.mysql((m) => statements.salesByRequest(m).getRawMany<{ requestId: string; n: unknown }>());
    return Object.fromEntries(rows.map((r) => [r.requestId, Number(r.n)]));
  }

  /** The count and its version, for the optimistic strategy. */
  readVersioned(): Promise<CountRow | undefined> {
    return this.mysql((m) => readRow(statements.selectVersioned(m)));
  }

  /** One statement that checks and decrements; true when it took a unit. */
  decrementIfAvailable(sale?: SaleId): Promise<boolean> {
    return this.mysqlWrite((m) => withSale(m, sale, (tx) => changed(statements.decrement(tx))));
  }

  /** Writes `count` only if nobody changed the row since `version` was read; true when it did. */
  compareAndSet(version: number, count: number, sale?: SaleId): Promise<boolean> {
    return this.mysqlWrite((m) => withSale(m, sale, (tx) => changed(statements.compareAndSet(tx, version, count))));
  }

  /**
   * Runs `work` inside a transaction that holds the row's exclusive lock (SELECT … FOR UPDATE);
   * `work` gets the count and returns the new one, or undefined to leave it. Any error rolls back.
   * The wait for the row lock is bounded by `waitMs` (whole seconds, InnoDB's unit) instead of
   * InnoDB's default 50 s; past it MySQL's ER_LOCK_WAIT_TIMEOUT is thrown (see isLockWaitTimeout).
   * `shared`: the read takes a shared lock instead, which the write must upgrade: two holders that
   * both write deadlock, and InnoDB rolls one back (ER_LOCK_DEADLOCK, see isDeadlock).
   */
  withRowLocked<T>(
    waitMs: number,
    work: (count: number) => Promise<{ count?: number; result: T }>,
    sale?: SaleId,
    mode: RowLockMode = 'exclusive',
  ): Promise<T> {
    const waitSeconds = Math.max(1, Math.ceil(waitMs / 1000));
    // The COMMIT is the write: a connection lost after it was sent is an unknown outcome.
    return this.mysqlWrite(async (m, bound) => {
      // No QueryBuilder form exists for a session variable; it stays a plain statement, and is put
      // back after, so the pooled connection does not carry this request's bound to the next user.
      await m.query(SET_LOCK_WAIT, [waitSeconds]);
      let result: T;
      try {
        result = await m.transaction(async (tx) => {
          // The locking read may wait for the row lock this long on the server: not a dead link.
          bound.allowLockWait(waitSeconds * 1000);
          const row = mode === 'shared' ? await readSharedRow(tx) : await readRow(statements.selectForUpdate(tx));
          // Exclusive, the row is ours now; shared, the write still waits to upgrade the lock.
          if (mode === 'exclusive') bound.allowLockWait(0);
          const { count, result } = await work(row?.count ?? 0);
          if (count !== undefined) {
            await statements.write(tx, count).execute();
            if (sale) await statements.recordSale(tx, sale).execute();
          }
          return result;
        });
      } catch (err) {
        // On a connection that failed or was given up on the SET fails too (and the connection is
        // never reused): its error must not replace the transaction's, which says whether a COMMIT
        // was sent.
        await m.query(RESTORE_LOCK_WAIT).catch(() => undefined);
        throw err;
      }
      // Committed: the sale happened, whatever the SET's fate. A connection that fails it now is
      // destroyed (statement bound) or dropped by the pool (connection lost), never reused with it.
      await m.query(RESTORE_LOCK_WAIT).catch(() => undefined);
      return result;
    });
  }

  /** Statements on one pooled connection, waited for at most `waitMs` (PoolBusyError past it). */
  private mysql<T>(work: (m: EntityManager) => Promise<T>, waitMs = this.acquireMs): Promise<T> {
    return callDependency('mysql', () => onConnection(this.db, waitMs, work));
  }

  /** The same for a change of the count: an answer lost after sending is OutcomeUnknownError. */
  private mysqlWrite<T>(work: (m: EntityManager, bound: StatementBound) => Promise<T>): Promise<T> {
    return callDependencyWrite('mysql', () => onConnection(this.db, this.acquireMs, work));
  }
}

/**
 * Runs a change of the row; with a sale to record, in one transaction with its record, which is
 * written only when the change matched. Without one, the single statement autocommits as before.
 */
function withSale(m: EntityManager, sale: SaleId, change: (tx: EntityManager) => Promise<boolean>): Promise<boolean> {
  if (!sale) return change(m);
  return m.transaction(async (tx) => {
    const done = await change(tx);
    if (done) await statements.recordSale(tx, sale).execute();
    return done;
  });
}

async function readSharedRow(tx: EntityManager): Promise<CountRow | undefined> {
  const { sql, params } = statements.selectShared(tx);
  const [row] = (await tx.query(sql, params)) as { count: unknown; version?: unknown }[];
  return row && { count: Number(row.count), version: Number(row.version ?? 0) };
}

/** The selected columns of the row as numbers (BIGINT arrives as a string), or undefined without a row. */
async function readRow(qb: SelectQueryBuilder<StockRow>): Promise<CountRow | undefined> {
  const row = await qb.getRawOne<{ count: unknown; version?: unknown }>();
  return row && { count: Number(row.count), version: Number(row.version ?? 0) };
}
