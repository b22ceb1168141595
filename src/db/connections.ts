// A pooled MySQL connection, waited for with a bound. mysql2's pool has no acquire timeout: a
// request behind a full pool would wait as long as the slowest holder (a sql-for-update with a long
// workMs), /health included. Worse, a write given up on while still queued would run later, after
// its lock was released. So the wait is for the connection, before any statement is sent.
//
// Each statement is bounded too. On a link that stops answering (a partition drops packets, no RST
// comes), a statement would otherwise wait for TCP to give up, minutes later, with the request
// unanswered all the while. Past its bound the statement is abandoned and its connection destroyed:
// its session may still be running on the server, so the connection must never go back to the pool.
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';

/** No pooled connection came free within the wait: nothing was sent. */
export class PoolBusyError extends Error {
  constructor(waitMs: number) {
    super(`no MySQL connection free within ${waitMs} ms; nothing was sent`);
  }
}

/**
 * A statement got no answer within its bound; its connection was destroyed. `mayHaveApplied`: it
 * can take effect without its answer, so the caller must not say "no": a COMMIT, or a change run
 * outside a transaction (autocommit). A read, a SET, or any statement of a transaction whose COMMIT
 * was not sent cannot: the server rolls an open transaction back when its session ends.
 */
export class StatementTimeoutError extends Error {
  /** The code a timed-out socket gets, so it is judged as a connection failure (dependency.ts). */
  readonly code = 'ETIMEDOUT';
  constructor(
    sql: string,
    readonly boundMs: number,
    readonly mayHaveApplied: boolean,
  ) {
    super(`MySQL gave no answer to "${sql.slice(0, 60)}" within ${boundMs} ms; its connection was destroyed`);
  }
}

/** What `work` may tell the bound of the statements it sends next. */
export interface StatementBound {
  /**
   * The statements sent from now on may wait this long for a row lock on the server (their
   * session's innodb_lock_wait_timeout): their bound is this plus the data source's statement bound.
   */
  allowLockWait(ms: number): void;
}

/** Statements that change nothing, even under autocommit. */
const READ_ONLY = /^\s*(SELECT|SET|SHOW|START TRANSACTION|BEGIN|ROLLBACK)\b/i;

/** Each data source's statement bound, ms (set by createDataSource; none: unbounded, as before). */
const statementBounds = new WeakMap<DataSource, number>();

/** Bounds every statement run through onConnection on `db` by `ms` (MYSQL_STATEMENT_TIMEOUT_MS). */
export function boundStatements(db: DataSource, ms: number): void {
  statementBounds.set(db, ms);
}

/** The mysql2 pool connection TypeORM hands out, as far as abandoning it goes. */
interface PooledConnection {
  /** Takes it out of the pool for good, and ends it. */
  destroy(): void;
  stream?: { destroy(): void };
}

type RawQuery = (sql: string, parameters?: unknown, structured?: boolean) => Promise<unknown>;

/**
 * Puts a timer on every statement the runner sends (its transactions' included). Past the bound:
 * StatementTimeoutError, and the connection is destroyed before anything else can use it (TypeORM's
 * ROLLBACK after the error then fails at once instead of queueing behind the lost statement).
 */
function boundRunner(runner: QueryRunner, connection: PooledConnection, boundMs: number): StatementBound {
  let lockWaitMs = 0;
  let abandoned: StatementTimeoutError | undefined;
  const query = runner.query.bind(runner) as RawQuery;
  const bounded: RawQuery = (sql, parameters, structured) => {
    if (abandoned) return Promise.reject(abandoned);
    const limit = boundMs + lockWaitMs;
    // Judged when sent: COMMIT itself runs while the transaction is still active.
    const mayHaveApplied = /^\s*COMMIT\b/i.test(sql) || (!runner.isTransactionActive && !READ_ONLY.test(sql));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        abandoned = new StatementTimeoutError(sql, limit, mayHaveApplied);
        connection.destroy();
        // destroy() only half-closes (a FIN that a dead link never delivers): free the socket now.
        connection.stream?.destroy();
        reject(abandoned);
      }, limit);
      query(sql, parameters, structured).then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  };
  runner.query = bounded as QueryRunner['query'];
  return { allowLockWait: (ms) => void (lockWaitMs = Math.max(0, ms)) };
}

/**
 * Runs `work` on one connection of the pool, waited for at most `waitMs`; past it PoolBusyError,
 * and a connection granted later goes straight back unused. The manager `work` gets is bound to
 * that connection (its transactions run on it too), and each of its statements is bounded (see
 * StatementTimeoutError), which `work` may widen for a statement that waits on a row lock.
 */
export async function onConnection<T>(db: DataSource, waitMs: number, work: (m: EntityManager, bound: StatementBound) => Promise<T>): Promise<T> {
  const runner = db.createQueryRunner();
  const connected = runner.connect() as Promise<PooledConnection>;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new PoolBusyError(waitMs)), waitMs);
  });
  let connection: PooledConnection;
  try {
    connection = await Promise.race([connected, timedOut]);
  } catch (err) {
    void connected.then(
      () => runner.release(),
      () => runner.release(),
    );
    // mysql2's own bound on waiters (queueLimit): refused at once, nothing sent either.
    if (err instanceof Error && err.message.includes('Queue limit reached')) throw new PoolBusyError(waitMs);
    throw err;
  } finally {
    clearTimeout(timer);
  }
  const boundMs = statementBounds.get(db);
  const bound = boundMs === undefined ? { allowLockWait: () => undefined } : boundRunner(runner, connection, boundMs);
  try {
    return await work(runner.manager, bound);
  } finally {
    // A destroyed connection has left the pool already; release() is then a no-op.
    await runner.release();
  }
}
