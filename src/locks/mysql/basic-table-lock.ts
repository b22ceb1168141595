// mysql-lock-table-basic (course §4.2): INSERT a row with a unique lock_name, DELETE it by id.
// Flaws kept (§4.3): no expiry, so a dead holder's row stays for good; not reentrant.
import type { DataSource, EntityManager } from 'typeorm';
import { onConnection } from '../../db/connections.js';
import { callDependency } from '../../dependency.js';
import { LockNotHeldError } from '../errors.js';
import { leaseOf, neverLost, ownerOf, type AcquireOptions, type Lease, type Lock } from '../lock.js';
import { pollUntilAcquired } from '../poll.js';
import { undoIfReplyLost } from '../redis/lost-reply.js';

/** The longest wait for a pooled connection, as for the stock's statements. */
const ACQUIRE_MS = 5_000;

const notAcquired = new Set(['ER_DUP_ENTRY', 'ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT']);

/** Every statement it sends, as the driver gets them (GET /strategies lists them). */
const SQL = {
  insert: 'INSERT INTO tb_lock_basic (lock_name, server_name) VALUES (?, ?)',
  /** The course's deleteById. */
  deleteById: 'DELETE FROM tb_lock_basic WHERE id = ?',
  /** Only to undo an INSERT whose reply was lost: the id is unknown then. */
  deleteOwn: 'DELETE FROM tb_lock_basic WHERE lock_name = ? AND server_name = ?',
  clear: 'DELETE FROM tb_lock_basic',
} as const;

interface Written {
  affectedRows: number;
  insertId: number | string;
}

/**
 * mysql-lock-table-basic (docs/course.md §4, as §4.2 writes it): INSERT a row with a unique
 * lock_name to lock (a duplicate key: taken, retry after retryMs), DELETE it by id to unlock.
 * Kept flawed on purpose (§4.3): no expiry, so a holder that dies keeps its row for good; not
 * reentrant, so a nested acquire by the same owner waits for itself until waitMs.
 * `mysql-lock-table` (table-lock.ts) is the fixed version.
 */
export class MysqlBasicTableLock implements Lock {
  readonly expiry = 'none';
  /** An INSERT whose reply was lost is undone by a DELETE of this owner's row, as the Redis locks do. */
  readonly lostAcquire = 'released by its owner';

  constructor(private readonly db: DataSource) {}

  /** The SQL it sends: to acquire (once per attempt), and to release. */
  sql(): { acquire: string[]; release: string[] } {
    return { acquire: [SQL.insert], release: [SQL.deleteById] };
  }

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const owner = ownerOf(opts);
    let id: number | string = 0;
    await pollUntilAcquired(resource, opts, async () => {
      const inserted = await undoIfReplyLost(
        () => this.tryInsert(resource, owner),
        () => this.write(SQL.deleteOwn, [resource, owner]),
      );
      if (inserted === undefined) return false;
      id = inserted;
      return true;
    });
    return leaseOf(resource, neverLost, async () => {
      // Gone: a reset deleted it. Nothing else can, since no row ever expires.
      if ((await this.write(SQL.deleteById, [id])).affectedRows === 0) throw new LockNotHeldError(resource);
    });
  }

  /** Deletes every row (POST /stock/reset): the only way a dead holder's lock ever goes. */
  async clear(): Promise<void> {
    // Stryker disable next-line ArrayDeclaration: a statement with no placeholder ignores its parameters
    await this.write(SQL.clear, []);
  }

  /** The new row's id when the INSERT took the name; undefined when it is taken. */
  private async tryInsert(resource: string, owner: string): Promise<number | string | undefined> {
    try {
      return (await this.write(SQL.insert, [resource, owner])).insertId;
    } catch (err) {
      if (notAcquired.has(String((err as { code?: unknown }).code))) return undefined;
      throw err;
    }
  }

  private write(sql: string, params: unknown[]): Promise<Written> {
    return callDependency('mysql', () => onConnection(this.db, ACQUIRE_MS, (m: EntityManager) => m.query(sql, params) as Promise<Written>));
  }
}
