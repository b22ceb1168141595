import type { DataSource, EntityManager } from 'typeorm';
import { callDependency } from '../dependency.js';
import { LockTimeoutError } from '../locks/errors.js';
import { PRODUCT_CODE, STOCK_CODE } from './product.js';
import type { StockStore } from './store.js';

const WHERE_ROW = 'product_code = ? AND stock_code = ?';
const ROW = [PRODUCT_CODE, STOCK_CODE] as const;

interface CountRow { count: number; version: number }
interface WriteResult { affectedRows: number }

/** The db_stock row, and every SQL statement the deductions run on it. */
export class MysqlStock implements StockStore {
  constructor(private readonly db: DataSource) {}

  read(): Promise<number> {
    return this.mysql(async () => (await this.select(this.db.manager, ''))?.count ?? 0);
  }

  write(count: number): Promise<void> {
    return this.mysql(async () => {
      await this.db.query(`UPDATE db_stock SET \`count\` = ? WHERE ${WHERE_ROW}`, [count, ...ROW]);
    });
  }

  reset(count: number): Promise<void> {
    return this.mysql(async () => {
      await this.db.query(`UPDATE db_stock SET \`count\` = ?, version = 0 WHERE ${WHERE_ROW}`, [count, ...ROW]);
    });
  }

  /** The count and its version, for the optimistic strategy. */
  readVersioned(): Promise<CountRow | undefined> {
    return this.mysql(() => this.select(this.db.manager, ''));
  }

  /** One statement that checks and decrements: the database serializes it on the row. */
  decrementIfAvailable(): Promise<boolean> {
    return this.mysql(async () => {
      const res: WriteResult = await this.db.query(
        `UPDATE db_stock SET \`count\` = \`count\` - 1 WHERE ${WHERE_ROW} AND \`count\` >= 1`,
        [...ROW],
      );
      return res.affectedRows === 1;
    });
  }

  /** Writes `count` only if nobody changed the row since `version` was read. */
  compareAndSet(version: number, count: number): Promise<boolean> {
    return this.mysql(async () => {
      const res: WriteResult = await this.db.query(
        `UPDATE db_stock SET \`count\` = ?, version = version + 1 WHERE ${WHERE_ROW} AND version = ?`,
        [count, ...ROW, version],
      );
      return res.affectedRows === 1;
    });
  }

  /**
   * Runs `work` inside a transaction that holds the row's exclusive lock (SELECT … FOR UPDATE);
   * `work` gets the count and returns the new one, or undefined to leave it. Any error rolls back.
   * The wait for the row lock is bounded by `waitMs` (whole seconds, InnoDB's unit), then
   * LockTimeoutError, instead of InnoDB's default 50 s.
   */
  async withRowLocked<T>(waitMs: number, work: (count: number) => Promise<{ count?: number; result: T }>): Promise<T> {
    try {
      return await this.inRowLockTransaction(Math.max(1, Math.ceil(waitMs / 1000)), work);
    } catch (err) {
      if (errorCode(err) === 'ER_LOCK_WAIT_TIMEOUT') throw new LockTimeoutError('db_stock row', waitMs);
      throw err;
    }
  }

  private inRowLockTransaction<T>(waitSeconds: number, work: (count: number) => Promise<{ count?: number; result: T }>): Promise<T> {
    return this.mysql(() =>
      this.db.transaction(async (tx) => {
        await tx.query('SET SESSION innodb_lock_wait_timeout = ?', [waitSeconds]);
        const row = await this.select(tx, 'FOR UPDATE');
        const { count, result } = await work(row?.count ?? 0);
        if (count !== undefined) {
          await tx.query(`UPDATE db_stock SET \`count\` = ? WHERE ${WHERE_ROW}`, [count, ...ROW]);
        }
        return result;
      }),
    );
  }

  private async select(m: EntityManager, suffix: '' | 'FOR UPDATE'): Promise<CountRow | undefined> {
    const rows: CountRow[] = await m.query(
      `SELECT \`count\`, version FROM db_stock WHERE ${WHERE_ROW} ${suffix}`,
      [...ROW],
    );
    const row = rows[0];
    return row && { count: Number(row.count), version: Number(row.version) };
  }

  private mysql<T>(call: () => Promise<T>): Promise<T> {
    return callDependency('mysql', call);
  }
}

/** The MySQL error code of a driver error, also when TypeORM wraps it. */
function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; driverError?: { code?: unknown } } | undefined;
  const code = e?.code ?? e?.driverError?.code;
  return typeof code === 'string' ? code : undefined;
}
