import type { DataSource, EntityManager } from 'typeorm';
import { callDependency } from '../dependency.js';
import { PRODUCT_CODE, STOCK_CODE } from './product.js';
import type { StockStore } from './store.js';

const WHERE_ROW = 'product_code = ? AND stock_code = ?';
const ROW = [PRODUCT_CODE, STOCK_CODE] as const;

interface CountRow { count: number; version: number }
interface WriteResult { affectedRows: number }

/** The db_stock row, and every SQL statement the deductions run on it. */
export class MysqlStock implements StockStore {
  readonly kind = 'mysql';

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
   */
  withRowLocked<T>(work: (count: number) => Promise<{ count?: number; result: T }>): Promise<T> {
    return this.mysql(() =>
      this.db.transaction(async (tx) => {
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
