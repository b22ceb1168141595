// mysql-lock-table (course §4 with §4.3's fixes): a unique lock_name row, plus an expiry on MySQL's
// clock that the next acquirer reclaims, an owner count to re-enter, the row id as fencing token.
import type { DataSource, DeleteQueryBuilder, EntityManager, UpdateQueryBuilder } from 'typeorm';
import { LockRow } from '../../db/entities/lock-row.js';
import { onConnection } from '../../db/connections.js';
import { callDependency } from '../../dependency.js';
import { LockLostError, LockNotHeldError } from '../errors.js';
import { HoldCounter, type HoldKey } from '../holds.js';
import { expiringAt, leaseOf, ownerOf, type AcquireOptions, type Lease, type Lock } from '../lock.js';
import { pollUntilAcquired } from '../poll.js';

/** One grant of the lock: the row this owner inserted. Nested holds share it. */
interface Grant {
  id: bigint;
}

/** The longest wait for a pooled connection, as for the stock's statements. */
const ACQUIRE_MS = 5_000;

const notAcquired = new Set(['ER_DUP_ENTRY', 'ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT']);

/** Expiry as the database computes it, so every instance judges "expired" by one clock (a raw SQL fragment; :ttlUs = ttlMs × 1000). */
const EXPIRES = 'DATE_ADD(NOW(3), INTERVAL :ttlUs MICROSECOND)';

/**
 * Every statement, one tb_lock QueryBuilder each: the lock runs them and `sql()` lists them with
 * getSql(), so the list cannot drift. The DB clock (NOW(3)) stays a raw fragment in the conditions.
 */
const statements = {
  /** What the peek sees: no row (free), a row whose lease runs (held), or one whose lease ran out. */
  peek: (m: EntityManager, name: string) =>
    m.getRepository(LockRow).createQueryBuilder('l').select('l.expiresAt <= NOW(3)', 'expired').where('l.lockName = :name', { name }),
  reclaimExpired: (m: EntityManager, name: string) => m.createQueryBuilder().delete().from(LockRow).where('lockName = :name AND expiresAt <= NOW(3)', { name }),
  // Only these columns (id and created_at take their defaults), and no read-back of generated values (updateEntity(false)).
  insert: (m: EntityManager, name: string, owner: string, ttlMs: number) =>
    m
      .createQueryBuilder()
      .insert()
      .into(LockRow, ['lockName', 'owner', 'reentrantCount', 'expiresAt'])
      .values({ lockName: name, owner, reentrantCount: 1, expiresAt: () => EXPIRES })
      .setParameter('ttlUs', ttlMs * 1000)
      .updateEntity(false),
  reenter: (m: EntityManager, name: string, owner: string, ttlMs: number) =>
    m
      .createQueryBuilder()
      .update(LockRow)
      .set({ reentrantCount: () => 'reentrantCount + 1', expiresAt: () => `GREATEST(expiresAt, ${EXPIRES})` })
      .where('lockName = :name AND owner = :owner AND expiresAt > NOW(3)', { name, owner, ttlUs: ttlMs * 1000 }),
  countDown: (m: EntityManager, name: string, owner: string) =>
    m
      .createQueryBuilder()
      .update(LockRow)
      .set({ reentrantCount: () => 'reentrantCount - 1' })
      .where('lockName = :name AND owner = :owner AND reentrantCount > 1', { name, owner }),
  deleteOwn: (m: EntityManager, name: string, owner: string) =>
    m.createQueryBuilder().delete().from(LockRow).where('lockName = :name AND owner = :owner AND reentrantCount <= 1', { name, owner }),
  clear: (m: EntityManager) => m.createQueryBuilder().delete().from(LockRow),
};

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
  private readonly holds = new HoldCounter<Grant>();
  readonly fencing = 'lock-table';
  readonly expiry = 'lease';
  /** A row whose INSERT's reply was lost is reclaimed once its lease ends. */
  readonly lostAcquire = 'expires with its lease';

  constructor(private readonly db: DataSource) {}

  /**
   * The SQL it sends, as the driver gets it, for GET /strategies: to acquire (peek, reclaim an
   * expired row when the peek found one, insert; the first two again after each retryMs), to
   * re-enter, and to release. Needs an initialized DataSource.
   */
  sql(): { acquire: string[]; reenter: string[]; release: string[] } {
    const m = this.db.manager;
    return {
      acquire: [statements.peek(m, '').getSql(), statements.reclaimExpired(m, '').getSql(), statements.insert(m, '', '', 0).getSql()],
      reenter: [statements.reenter(m, '', '', 0).getSql()],
      release: [statements.countDown(m, '', '').getSql(), statements.deleteOwn(m, '', '').getSql()],
    };
  }

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const owner = ownerOf(opts);
    const key = { resource, owner };
    const held = this.holds.shared(key);
    if (held !== undefined) {
      const lease = await this.reenter(key, opts, held);
      this.holds.enter(key, () => held);
      return lease;
    }
    let granted = 0;
    let grant: Grant | undefined;
    await pollUntilAcquired(resource, opts, async () => {
      granted = Date.now();
      // Look before inserting: a plain read takes no locks, while every failing INSERT share-locks
      // the holder's row and, a hundred at a time, starves the holder's DELETE.
      const row = await this.peek(resource);
      // Held, and its lease still running: wait. Lease ran out (a crash, or work > ttlMs): free the name.
      if (row === 'held' || (row === 'expired' && !(await this.reclaimExpired(resource)))) return false;
      grant = await this.tryInsert(resource, owner, opts.ttlMs);
      return grant !== undefined;
    });
    const first = grant as Grant;
    this.holds.enter(key, () => first);
    return this.lease(key, granted + opts.ttlMs, first);
  }

  /** Deletes every lock row (POST /stock/reset). */
  async clear(): Promise<void> {
    await this.write((m) => statements.clear(m));
  }

  private async reenter(key: HoldKey, opts: AcquireOptions, grant: Grant): Promise<Lease> {
    const { resource, owner } = key;
    const granted = Date.now();
    const extended = await this.write((m) => statements.reenter(m, resource, owner, opts.ttlMs));
    if (!extended) throw new LockLostError(resource, 'the lease expired before the nested acquire');
    return this.lease(key, granted + opts.ttlMs, grant);
  }

  /**
   * One release for every hold, in whatever order the holds end: count down, and delete the row
   * with the last one. False when this owner holds no row (it expired and was reclaimed).
   */
  private async unlock(key: HoldKey, grant: Grant): Promise<boolean> {
    this.holds.leave(key, grant);
    if (await this.write((m) => statements.countDown(m, key.resource, key.owner))) {
      return true;
    }
    return this.write((m) => statements.deleteOwn(m, key.resource, key.owner));
  }

  /**
   * A lease whose `lost` fires when its ttl passes (by our clock, which started before the INSERT:
   * early, never late). Its fencing token is the row's AUTO_INCREMENT id: every grant inserts a
   * new row, and InnoDB never hands out an id twice, also after the rows are deleted.
   */
  private lease(key: HoldKey, expiresAt: number, grant: Grant): Lease {
    const { resource } = key;
    const expiry = expiringAt(expiresAt, `lease of ${resource} expired (ttlMs) before the work finished`);
    return leaseOf(
      resource,
      expiry.lost,
      async () => {
        expiry.cancel();
        // Nothing matched: the row expired and someone reclaimed it. Never delete another owner's row.
        if (!(await this.unlock(key, grant))) throw new LockNotHeldError(resource);
      },
      async () => grant.id,
    );
  }

  /** The grant (its row's id) when the INSERT took the name; undefined when it is taken. */
  private async tryInsert(resource: string, owner: string, ttlMs: number): Promise<Grant | undefined> {
    try {
      const inserted = await this.run((m) => statements.insert(m, resource, owner, ttlMs).execute());
      return { id: BigInt((inserted.raw as { insertId: number | string }).insertId) };
    } catch (err) {
      // Taken. InnoDB may also pick a contended INSERT as a deadlock victim while the holder deletes
      // its row: the statement was rolled back, so that too is just "not this time".
      if (notAcquired.has(String((err as { code?: unknown }).code))) return undefined;
      throw err;
    }
  }

  private peek(resource: string): Promise<'free' | 'held' | 'expired'> {
    return this.run(async (m) => {
      const row = await statements.peek(m, resource).getRawOne<{ expired: unknown }>();
      return !row ? 'free' : Number(row.expired) ? 'expired' : 'held';
    });
  }

  private async reclaimExpired(resource: string): Promise<boolean> {
    return this.write((m) => statements.reclaimExpired(m, resource));
  }

  /** Runs a write; true when it changed a row. */
  private write(qb: (m: EntityManager) => UpdateQueryBuilder<LockRow> | DeleteQueryBuilder<LockRow>): Promise<boolean> {
    return this.run(async (m) => ((await qb(m).execute()).affected ?? 0) > 0);
  }

  /** Statements on one pooled connection, its wait bounded (db/connections.ts). */
  private run<T>(work: (m: EntityManager) => Promise<T>): Promise<T> {
    return callDependency('mysql', () => onConnection(this.db, ACQUIRE_MS, work));
  }
}
