// pg-advisory-xact and pg-try-advisory: a transaction-level advisory lock on a connection held for
// the hold. COMMIT ends it, a dead holder's session takes it along; fenced by stock_fence_seq.
import type pg from 'pg';
import {
  bigintOf,
  checkout,
  isPgConnectionLost,
  isPgLockTimeout,
  isPgStatementTimeout,
  lockWaitStatement,
  pgFailure,
  PostgresPoolBusyError,
  statementBoundOf,
  type Checkout,
} from '../../db/postgres-pool.js';
import { callDependency } from '../../dependency.js';
import { LockNotHeldError, LockTimeoutError } from '../errors.js';
import { leaseOf, ownerOf, type AcquireOptions, type Lease, type Lock } from '../lock.js';
import { remaining } from '../../time.js';
import { advisoryKey } from './key.js';

/** The keys of this lock and of its never-waiting twin: the same lock, so they exclude each other. */
export const XACT_NAMESPACE = 'pg-advisory';

/** The statements, as sent; GET /strategies lists these same strings. */
export const XACT_SQL = {
  begin: 'BEGIN',
  /** The wait's bound, for this transaction only (ms, as text): lock_timeout = waitMs. */
  setLockTimeout: "SELECT set_config('lock_timeout', $1, true)",
  lock: 'SELECT pg_advisory_xact_lock($1::bigint)',
  tryLock: 'SELECT pg_try_advisory_xact_lock($1::bigint) AS granted',
  /** The grant's fencing token: taken once the lock is ours, so it is larger than every earlier holder's. */
  token: "SELECT nextval('stock_fence_seq') AS token",
  /** The release: a transaction-level advisory lock ends with its transaction. */
  commit: 'COMMIT',
  rollback: 'ROLLBACK',
} as const;

/**
 * pg-advisory-xact (and, with `mode: 'try'`, pg-try-advisory): a transaction-level advisory lock
 * on a connection checked out for the whole hold. Acquire = BEGIN, lock_timeout = waitMs,
 * pg_advisory_xact_lock(key) (55P03 past the wait: LockTimeoutError), then the fencing token from
 * stock_fence_seq; release = COMMIT, which ends the lock with the transaction, and the connection
 * goes back. A holder that dies ends its session and so its lock: nobody waits for a lease.
 * `try` never waits: pg_try_advisory_xact_lock answers at once, and "no" is LockTimeoutError.
 *
 * Not reentrant: a second acquire by the same owner needs a second connection (the first is
 * held), whose session waits for the first's. `lost` fires when the held connection fails (its
 * session ended: a restart, a terminated backend, idle_in_transaction_session_timeout): the lock
 * went with it.
 */
export class PgAdvisoryXactLock implements Lock {
  readonly fencing = 'postgres';

  /** `pool`: connections for the locks alone (a holder also needs one from the stock's pool to deduct). */
  constructor(
    private readonly pool: pg.Pool,
    private readonly mode: 'wait' | 'try' = 'wait',
  ) {}

  /** What it sends to acquire and to release, as sent (the token's statement is part of every grant). */
  sql(): { acquire: string[]; release: string[] } {
    return {
      acquire:
        this.mode === 'try' ? [XACT_SQL.begin, XACT_SQL.tryLock, XACT_SQL.token] : [XACT_SQL.begin, XACT_SQL.setLockTimeout, XACT_SQL.lock, XACT_SQL.token],
      release: [XACT_SQL.commit],
    };
  }

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    ownerOf(opts); // the session is the owner; the explicit one is checked so every lock asks alike
    const key = advisoryKey(XACT_NAMESPACE, resource).toString();
    const deadline = Date.now() + opts.waitMs;
    // A full lock pool is other holders and waiters: a wait for the lock like any other.
    const conn = await callDependency('postgres', () => checkout(this.pool, opts.waitMs)).catch((err: unknown) => {
      throw err instanceof PostgresPoolBusyError ? new LockTimeoutError(resource, opts.waitMs) : err;
    });
    let token: bigint | undefined;
    try {
      token = await this.take(conn.client, key, this.mode === 'try' ? 0 : remaining(deadline));
    } catch (err) {
      const lost = isPgConnectionLost(err) || conn.broken.aborted;
      if (!lost) await conn.client.query(XACT_SQL.rollback).catch(() => undefined);
      conn.done(lost);
      if (isPgLockTimeout(err)) throw new LockTimeoutError(resource, opts.waitMs);
      return callDependency('postgres', () => Promise.reject(pgFailure(err, false)));
    }
    if (token === undefined) {
      await conn.client.query(XACT_SQL.rollback).catch(() => undefined);
      conn.done(conn.broken.aborted);
      throw new LockTimeoutError(resource, this.mode === 'try' ? 0 : opts.waitMs);
    }
    const granted = token;
    return leaseOf(
      resource,
      conn.broken,
      () => this.release(resource, conn),
      async () => granted,
    );
  }

  /** BEGIN, the lock (waiting at most `waitMs`; 0: not at all), the token; undefined when refused without a wait. */
  private async take(c: pg.PoolClient, key: string, waitMs: number): Promise<bigint | undefined> {
    await c.query(XACT_SQL.begin);
    if (waitMs <= 0) {
      // lock_timeout 0 would mean "wait forever": a wait of nothing is a try.
      const granted = (await c.query<{ granted: boolean }>(XACT_SQL.tryLock, [key])).rows[0]?.granted === true;
      if (!granted) return undefined;
    } else {
      await c.query(XACT_SQL.setLockTimeout, [String(waitMs)]);
      // The server may keep it waiting waitMs: its bound is the statement bound on top.
      await c.query(lockWaitStatement(statementBoundOf(this.pool), XACT_SQL.lock, [key], waitMs));
    }
    return bigintOf((await c.query<{ token: string }>(XACT_SQL.token)).rows[0]?.token);
  }

  /**
   * COMMIT ends the lock. A connection that failed during the hold had lost it already:
   * LockNotHeldError. A COMMIT unanswered within its bound proves no loss: its error as it is.
   */
  private async release(resource: string, conn: Checkout): Promise<void> {
    if (conn.broken.aborted) {
      conn.done(true);
      throw new LockNotHeldError(resource);
    }
    try {
      await conn.client.query(XACT_SQL.commit);
      conn.done();
    } catch (err) {
      conn.done(true);
      // The session ended under the hold: its lock ended with it.
      if (isPgConnectionLost(err) && !isPgStatementTimeout(err)) throw new LockNotHeldError(resource);
      throw err;
    }
  }
}
