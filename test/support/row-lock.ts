// Deductions made to wait from outside the service, on a lock of the database itself.
import { createConnection, type ConnectionOptions } from 'mysql2/promise';

/** The stock row locked from outside the service (SELECT … FOR UPDATE in an open transaction). */
export async function holdRowLock(login: ConnectionOptions): Promise<{ lockWaits(): Promise<number>; release(): Promise<void> }> {
  const conn = await createConnection(login);
  await conn.query('BEGIN');
  await conn.query("SELECT `count` FROM db_stock WHERE product_code = '1001' AND stock_code = '001' FOR UPDATE");
  return {
    /** Other connections of the lab's user running a FOR UPDATE right now: waiting on this lock (the user sees its own threads without PROCESS). */
    async lockWaits() {
      const [rows] = await conn.query("SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND INFO LIKE '%FOR UPDATE%'");
      return Number((rows as { n: unknown }[])[0]?.n ?? 0);
    },
    async release() {
      await conn.query('ROLLBACK');
      await conn.end();
    },
  };
}
