// pg-advisory-session, written as a first try would be, flaw kept: a session advisory lock taken
// through a pool, so it leaks, and re-enters for whoever gets the connection that holds it.
import type pg from 'pg';
import { lockWaitStatement, onPgConnection, PostgresPoolBusyError, isPgLockTimeout, pgFailure, statementBoundOf } from '../../db/postgres-pool.js';
import { callDependency } from '../../dependency.js';
import { LockTimeoutError } from '../errors.js';
import { leaseOf, neverLost, ownerOf, type AcquireOptions, type Lease, type Lock } from '../lock.js';
import { remaining } from '../../time.js';
import { advisoryKey, PG_LOCKS_KEY_MATCH } from './key.js';

/** Its own keys: its leaks must block only itself, and a reset clears them by key. */
export const SESSION_NAMESPACE = 'pg-advisory-session';

/** The statements, as sent; GET /strategies lists these same strings. */
export const SESSION_SQL = {
  /** The wait's bound on this session (ms, as text), set and put back around the lock. */
  setLockTimeout: "SELECT set_config('lock_timeout', $1, false)",
  lock: 'SELECT pg_advisory_lock($1::bigint)',
  tryLock: 'SELECT pg_try_advisory_lock($1::bigint) AS granted',
  resetLockTimeout: 'RESET lock_timeout',
  /** Sent on whatever pooled connection comes next: false (and a WARNING) when that session holds nothing. */
  unlock: 'SELECT pg_advisory_unlock($1::bigint)',
  /** A reset's clean-up: ends every other session holding (or waiting for) the key, and with it what it leaked... */
  endHolders: `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE ${PG_LOCKS_KEY_MATCH} AND pid <> pg_backend_pid()`,
  /** ...and drops what the session running it holds: the pool may have handed the clean-up a leaking connection. */
  unlockAll: 'SELECT pg_advisory_unlock_all()',
} as const;

/** The unlock's wait for a pooled connection. */
const UNLOCK_ACQUIRE_MS = 5_000;

/**
 * pg-advisory-session, the way a course's first try writes it, flaw kept: a session-level
 * pg_advisory_lock(key) on whatever pooled connection the pool hands out, which then goes back to
 * the pool still holding the lock; and pg_advisory_unlock(key) on whatever connection the pool
 * hands out next. A session-level advisory lock belongs to the session, not to the request:
 *   - the unlock may land on another connection, whose session holds nothing: it answers false
 *     (the answer is not read, as in the course) and the lock stays with the first session: leaked;
 *   - a request handed the connection that holds it "takes" it again at once (session locks are
 *     reentrant per session): two requests inside together, while requests on the other
 *     connections wait for a lock nobody is going to give back.
 * Do not fix it: pg-advisory-xact is the fix (the lock tied to a transaction on a held connection).
 */
export class PgAdvisorySessionLock implements Lock {
  constructor(private readonly pool: pg.Pool) {}

  sql(): { acquire: string[]; release: string[] } {
    return { acquire: [SESSION_SQL.setLockTimeout, SESSION_SQL.lock, SESSION_SQL.resetLockTimeout], release: [SESSION_SQL.unlock] };
  }

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    ownerOf(opts);
    const key = advisoryKey(SESSION_NAMESPACE, resource).toString();
    const deadline = Date.now() + opts.waitMs;
    try {
      await this.run(opts.waitMs, async (c) => {
        const waitMs = remaining(deadline);
        if (waitMs <= 0) {
          // lock_timeout 0 would mean "wait forever": a wait of nothing is a try.
          if ((await c.query<{ granted: boolean }>(SESSION_SQL.tryLock, [key])).rows[0]?.granted !== true) throw new LockTimeoutError(resource, opts.waitMs);
          return;
        }
        await c.query(SESSION_SQL.setLockTimeout, [String(waitMs)]);
        try {
          // The server may keep it waiting waitMs: its bound is the statement bound on top. Past
          // that, its connection is closed, and the RESET below refused at once.
          await c.query(lockWaitStatement(statementBoundOf(this.pool), SESSION_SQL.lock, [key], waitMs));
        } finally {
          await c.query(SESSION_SQL.resetLockTimeout).catch(() => undefined);
        }
      });
    } catch (err) {
      if (isPgLockTimeout(err) || err instanceof PostgresPoolBusyError) throw new LockTimeoutError(resource, opts.waitMs);
      throw err;
    }
    // The connection went back to the pool with the lock. Nothing tells this holder of a loss.
    return leaseOf(resource, neverLost, () => this.run(UNLOCK_ACQUIRE_MS, (c) => c.query(SESSION_SQL.unlock, [key])));
  }

  /** Ends every session holding or waiting for `resource`'s key, on every instance: what the leaks left (POST /stock/reset). */
  async clear(resource: string): Promise<void> {
    await this.run(UNLOCK_ACQUIRE_MS, async (c) => {
      await c.query(SESSION_SQL.endHolders, [advisoryKey(SESSION_NAMESPACE, resource).toString()]);
      await c.query(SESSION_SQL.unlockAll);
    });
  }

  /** Statements on whichever pooled connection comes free within `waitMs`. */
  private run<T>(waitMs: number, work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return callDependency('postgres', async () => {
      try {
        return await onPgConnection(this.pool, waitMs, work);
      } catch (err) {
        throw pgFailure(err, false);
      }
    });
  }
}
