// The stock row's twin in PostgreSQL (store=postgres): the same row by what it is (product,
// warehouse), the same version bump on every change, the same fences and sale records as
// MysqlStock, in plain SQL sent through a `pg` pool.
import type pg from 'pg';
import { callDependency, callDependencyWrite } from '../dependency.js';
import { isPgConnectionLost, lockWaitStatement, onPgConnection, pgFailure, statementBoundOf } from '../db/postgres-pool.js';
import { FENCE_SOURCES, type Fence, type FenceSource } from '../fencing.js';
import { PRODUCT_CODE, STOCK_CODE } from './product.js';
import type { SaleId, StockStore } from './store.js';

/** Each token source's fence column (fixed names, never from input). */
const FENCE_COLUMNS: Record<FenceSource, string> = {
  redis: 'fence_redis',
  zookeeper: 'fence_zookeeper',
  'lock-table': 'fence_lock_table',
  etcd: 'fence_etcd',
  postgres: 'fence_postgres',
};

/** $1, $2: the row (product, warehouse), in every statement on it. */
const ROW = [PRODUCT_CODE, STOCK_CODE] as const;
const WHERE_ROW = 'WHERE product_code = $1 AND stock_code = $2';

/**
 * Every statement as sent; GET /strategies lists these same strings. Every change moves the
 * version on (never back: a reset too), as MySQL's @VersionColumn does.
 */
export const PG_SQL = {
  selectCount: `SELECT count FROM db_stock ${WHERE_ROW}`,
  selectForUpdate: `SELECT count, version FROM db_stock ${WHERE_ROW} FOR UPDATE`,
  write: `UPDATE db_stock SET count = $3, version = version + 1 ${WHERE_ROW}`,
  decrement: `UPDATE db_stock SET count = count - 1, version = version + 1 ${WHERE_ROW} AND count >= 1`,
  claim: (source: FenceSource) => `UPDATE db_stock SET ${FENCE_COLUMNS[source]} = $3, version = version + 1 ${WHERE_ROW} AND ${FENCE_COLUMNS[source]} < $3`,
  writeFenced: (source: FenceSource) => `UPDATE db_stock SET count = $3, version = version + 1 ${WHERE_ROW} AND ${FENCE_COLUMNS[source]} = $4`,
  recordSale: 'INSERT INTO tb_sale (request_id) VALUES ($1)',
  salesByRequest: 'SELECT request_id, COUNT(*) AS n FROM tb_sale GROUP BY request_id',
  clearSales: 'DELETE FROM tb_sale',
  begin: 'BEGIN',
  commit: 'COMMIT',
  rollback: 'ROLLBACK',
  /** FOR UPDATE's bound on the row-lock wait, for this transaction only (ms, as text). */
  setLockTimeout: "SELECT set_config('lock_timeout', $1, true)",
} as const;

/** How long a deduction waits for a free pooled connection by default (as MysqlStock). */
const DEFAULT_ACQUIRE_MS = 5_000;

/** What a transaction's caller learns of it: whether its COMMIT was sent (then a lost answer is an unknown outcome). */
interface TxState {
  commitSent: boolean;
}

export class PostgresStock implements StockStore {
  /** The SQL each deduction sends, in order, for GET /strategies (as MysqlStock.sql). */
  readonly sql: {
    readonly readThenWrite: readonly string[];
    readonly readThenWriteFenced: Readonly<Record<FenceSource, readonly string[]>>;
    readonly decrement: readonly string[];
    readonly forUpdate: readonly string[];
  };

  constructor(
    private readonly pool: pg.Pool,
    private readonly acquireMs = DEFAULT_ACQUIRE_MS,
  ) {
    this.sql = {
      readThenWrite: [PG_SQL.selectCount, PG_SQL.write],
      readThenWriteFenced: Object.fromEntries(FENCE_SOURCES.map((s) => [s, [PG_SQL.claim(s), PG_SQL.selectCount, PG_SQL.writeFenced(s)]])) as Record<
        FenceSource,
        string[]
      >,
      decrement: [PG_SQL.decrement],
      forUpdate: [PG_SQL.begin, PG_SQL.setLockTimeout, PG_SQL.selectForUpdate, PG_SQL.write, PG_SQL.commit],
    };
  }

  read(): Promise<number> {
    return this.run(async (c) => Number((await c.query<{ count: number }>(PG_SQL.selectCount, [...ROW])).rows[0]?.count ?? 0));
  }

  /** Whether PostgreSQL answers within `waitMs`, a free connection included (GET /health). */
  reachable(waitMs: number): Promise<boolean> {
    return this.run((c) => c.query('SELECT 1'), waitMs).then(
      () => true,
      () => false,
    );
  }

  write(count: number, sale?: SaleId): Promise<void> {
    return this.change(PG_SQL.write, [count], sale).then(() => undefined);
  }

  claim(fence: Fence): Promise<boolean> {
    return this.run(async (c) => (await c.query(PG_SQL.claim(fence.source), [...ROW, fence.token.toString()])).rowCount === 1);
  }

  writeFenced(fence: Fence, count: number, sale?: SaleId): Promise<boolean> {
    return this.change(PG_SQL.writeFenced(fence.source), [count, fence.token.toString()], sale);
  }

  reset(count: number): Promise<void> {
    return this.run((c) =>
      transaction(c, { commitSent: false }, async () => {
        await c.query(PG_SQL.write, [...ROW, count]);
        await c.query(PG_SQL.clearSales);
      }),
    );
  }

  async sales(): Promise<Record<string, number>> {
    const rows = await this.run(async (c) => (await c.query<{ request_id: string; n: string }>(PG_SQL.salesByRequest)).rows);
    return Object.fromEntries(rows.map((r) => [r.request_id, Number(r.n)]));
  }

  /** One statement that checks and decrements; true when it took a unit. */
  decrementIfAvailable(sale?: SaleId): Promise<boolean> {
    return this.change(PG_SQL.decrement, [], sale);
  }

  /**
   * Runs `work` inside a transaction that holds the row's lock (SELECT … FOR UPDATE); `work` gets
   * the count and returns the new one, or undefined to leave it. The row-lock wait is bounded by
   * `waitMs` (lock_timeout, this transaction only; 0 would mean "forever" to PostgreSQL, so 1 ms);
   * past it PostgreSQL's 55P03 is thrown (see isPgLockTimeout). Every statement is bounded
   * (PG_STATEMENT_TIMEOUT_MS), the locking read by that bound on top of its wait (lockWaitStatement).
   */
  withRowLocked<T>(waitMs: number, work: (count: number) => Promise<{ count?: number; result: T }>, sale?: SaleId): Promise<T> {
    const lockWaitMs = Math.max(1, waitMs);
    return this.runWrite((c, state) =>
      transaction(c, state, async () => {
        await c.query(PG_SQL.setLockTimeout, [String(lockWaitMs)]);
        const forUpdate = lockWaitStatement(statementBoundOf(this.pool), PG_SQL.selectForUpdate, ROW, lockWaitMs);
        const row = (await c.query<{ count: number }>(forUpdate)).rows[0];
        const { count, result } = await work(Number(row?.count ?? 0));
        if (count !== undefined) {
          await c.query(PG_SQL.write, [...ROW, count]);
          if (sale) await c.query(PG_SQL.recordSale, [sale]);
        }
        return result;
      }),
    );
  }

  /**
   * A change of the row (`params` after the row's two); with a sale to record, in one transaction
   * with its record, written only when the change matched. Without one, it autocommits alone.
   */
  private change(sql: string, params: readonly unknown[], sale: SaleId): Promise<boolean> {
    return this.runWrite(async (c, state) => {
      if (!sale) {
        state.commitSent = true; // autocommit: the statement is its own commit
        return (await c.query(sql, [...ROW, ...params])).rowCount === 1;
      }
      return transaction(c, state, async () => {
        const done = (await c.query(sql, [...ROW, ...params])).rowCount === 1;
        if (done) await c.query(PG_SQL.recordSale, [sale]);
        return done;
      });
    });
  }

  /**
   * Statements that change nothing (or a reset, which the caller repeats): a lost connection, or a
   * statement past its bound, is "down".
   */
  private run<T>(work: (c: pg.PoolClient) => Promise<T>, waitMs = this.acquireMs): Promise<T> {
    return callDependency('postgres', async () => {
      try {
        return await onPgConnection(this.pool, waitMs, work);
      } catch (err) {
        throw pgFailure(err, false);
      }
    });
  }

  /**
   * A change of the count: a connection lost, or a statement past its bound, after its commit was
   * sent (a COMMIT, an autocommitted change) is OutcomeUnknownError; before it, a refusal: the
   * server rolls back a transaction whose session ends without its COMMIT.
   */
  private runWrite<T>(work: (c: pg.PoolClient, state: TxState) => Promise<T>): Promise<T> {
    return callDependencyWrite('postgres', async () => {
      const state: TxState = { commitSent: false };
      try {
        return await onPgConnection(this.pool, this.acquireMs, (c) => work(c, state));
      } catch (err) {
        throw pgFailure(err, state.commitSent);
      }
    });
  }
}

/** BEGIN, `work`, COMMIT; ROLLBACK on any error (quietly: on a dead connection it fails too). */
async function transaction<T>(c: pg.PoolClient, state: TxState, work: () => Promise<T>): Promise<T> {
  await c.query(PG_SQL.begin);
  let result: T;
  try {
    result = await work();
  } catch (err) {
    if (!isPgConnectionLost(err)) await c.query(PG_SQL.rollback).catch(() => undefined);
    throw err;
  }
  state.commitSent = true;
  await c.query(PG_SQL.commit);
  return result;
}
