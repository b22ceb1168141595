import type { DataSource } from 'typeorm';
import { callDependency } from '../../dependency.js';
import { LockLostError, LockNotHeldError } from '../errors.js';
import { HoldCounter, type HoldKey } from '../holds.js';
import { leaseOf, ownerOf, type AcquireOptions, type Lease, type Lock } from '../lock.js';
import { pollUntilAcquired } from '../poll.js';
import { remaining } from '../../time.js';

interface WriteResult { affectedRows: number }

const notAcquired = new Set(['ER_DUP_ENTRY', 'ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT']);

/** Expiry as the database computes it, so every instance judges "expired" by one clock. */
const EXPIRES = 'DATE_ADD(NOW(3), INTERVAL ? MICROSECOND)';

/**
 * mysql-lock-table (course §4): the unique key on tb_lock.lock_name is the lock. Acquire = INSERT
 * (a duplicate key means taken: retry after retryMs); release = DELETE of our own row; a row whose
 * lease (ttlMs) ran out is reclaimed by a conditional DELETE, so a crashed holder blocks the others
 * only until its expiry. The same owner re-enters by counting up reentrant_count.
 */
export class MysqlTableLock implements Lock {
  /**
   * Open holds per (resource, owner) in this process. Owners are per-request tokens of this
   * process, so only these can possibly re-enter: it spares a pointless query on every failed INSERT.
   */
  private readonly holds = new HoldCounter<true>();

  constructor(private readonly db: DataSource) {}

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const owner = ownerOf(opts);
    const key = { resource, owner };
    if (this.holds.count(key) > 0) {
      const lease = await this.reenter(key, opts);
      this.holds.enter(key, () => true);
      return lease;
    }
    let granted = 0;
    await pollUntilAcquired(resource, opts, async () => {
      granted = Date.now();
      // Look before inserting: a plain read takes no locks, while every failing INSERT share-locks
      // the holder's row and, a hundred at a time, starves the holder's DELETE.
      const row = await this.peek(resource);
      // Held, and its lease still running: wait. Lease ran out (a crash, or work > ttlMs): free the name.
      if (row === 'held' || (row === 'expired' && !(await this.reclaimExpired(resource)))) return false;
      return this.tryInsert(resource, owner, opts.ttlMs);
    });
    this.holds.enter(key, () => true);
    return this.lease(key, granted + opts.ttlMs);
  }

  /** Deletes every lock row (POST /stock/reset). */
  async clear(): Promise<void> {
    await this.write('DELETE FROM tb_lock', []);
  }

  private async reenter(key: HoldKey, opts: AcquireOptions): Promise<Lease> {
    const { resource, owner } = key;
    const granted = Date.now();
    const extended = await this.write(
      `UPDATE tb_lock SET reentrant_count = reentrant_count + 1, expires_at = GREATEST(expires_at, ${EXPIRES})
       WHERE lock_name = ? AND owner = ? AND expires_at > NOW(3)`,
      [opts.ttlMs * 1000, resource, owner],
    );
    if (!extended) throw new LockLostError(resource, 'the lease expired before the nested acquire');
    return this.lease(key, granted + opts.ttlMs);
  }

  /**
   * One release for every hold, in whatever order the holds end: count down, and delete the row
   * with the last one. False when this owner holds no row (it expired and was reclaimed).
   */
  private async unlock(key: HoldKey): Promise<boolean> {
    this.holds.leave(key, true);
    const params = [key.resource, key.owner];
    if (await this.write('UPDATE tb_lock SET reentrant_count = reentrant_count - 1 WHERE lock_name = ? AND owner = ? AND reentrant_count > 1', params)) {
      return true;
    }
    return this.write('DELETE FROM tb_lock WHERE lock_name = ? AND owner = ? AND reentrant_count <= 1', params);
  }

  /** A lease whose `lost` fires when its ttl passes (by our clock, which started before the INSERT: early, never late). */
  private lease(key: HoldKey, expiresAt: number): Lease {
    const { resource } = key;
    const lost = new AbortController();
    const timer = setTimeout(() => lost.abort(`lease of ${resource} expired (ttlMs) before the work finished`), remaining(expiresAt));
    timer.unref();
    return leaseOf(resource, lost.signal, async () => {
      clearTimeout(timer);
      // Nothing matched: the row expired and someone reclaimed it. Never delete another owner's row.
      if (!(await this.unlock(key))) throw new LockNotHeldError(resource);
    });
  }

  private async tryInsert(resource: string, owner: string, ttlMs: number): Promise<boolean> {
    try {
      await this.write(`INSERT INTO tb_lock (lock_name, owner, reentrant_count, expires_at) VALUES (?, ?, 1, ${EXPIRES})`, [
        resource,
        owner,
        ttlMs * 1000,
      ]);
      return true;
    } catch (err) {
      // Taken. InnoDB may also pick a contended INSERT as a deadlock victim while the holder deletes
      // its row: the statement was rolled back, so that too is just "not this time".
      if (notAcquired.has(String((err as { code?: unknown }).code))) return false;
      throw err;
    }
  }

  private peek(resource: string): Promise<'free' | 'held' | 'expired'> {
    return callDependency('mysql', async () => {
      const rows: { expired: number }[] = await this.db.query('SELECT expires_at <= NOW(3) AS expired FROM tb_lock WHERE lock_name = ?', [resource]);
      const row = rows[0];
      return !row ? 'free' : Number(row.expired) ? 'expired' : 'held';
    });
  }

  private async reclaimExpired(resource: string): Promise<boolean> {
    return this.write('DELETE FROM tb_lock WHERE lock_name = ? AND expires_at <= NOW(3)', [resource]);
  }

  /** Runs a write; true when it changed a row. */
  private write(sql: string, params: unknown[]): Promise<boolean> {
    return callDependency('mysql', async () => ((await this.db.query(sql, params)) as WriteResult).affectedRows > 0);
  }
}
