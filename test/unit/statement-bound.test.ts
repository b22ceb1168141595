// The bound on each MySQL statement (src/db/connections.ts), on a stand-in query runner and fake
// timers: a statement unanswered past its bound is given up on, its connection destroyed and
// refused to every later statement, and the error says whether what was sent may have been applied,
// which decides 503 outcome_unknown or a refusal. Pure: no server.
import type { DataSource, EntityManager } from 'typeorm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { boundStatements, onConnection, StatementTimeoutError, type StatementBound } from '../../src/db/connections.js';
import { DependencyDownError, OutcomeUnknownError, callDependency, callDependencyWrite } from '../../src/dependency.js';

const BOUND_MS = 1_000;

/** A query runner whose statements answer after `delayOf(sql)` ms, or never (a link that went silent). */
function standIn(delayOf: (sql: string) => number | 'never') {
  const connection = { destroyed: 0, socketsFreed: 0, destroy: () => void connection.destroyed++, stream: { destroy: () => void connection.socketsFreed++ } };
  const runner = {
    isTransactionActive: false,
    released: 0,
    connect: () => Promise.resolve(connection),
    release: () => Promise.resolve(void runner.released++),
    query: (sql: string): Promise<unknown> => {
      if (sql === 'START TRANSACTION') runner.isTransactionActive = true;
      const delay = delayOf(sql);
      if (delay === 'never') return new Promise(() => undefined);
      if (sql === 'COMMIT') runner.isTransactionActive = false;
      return delay === 0 ? Promise.resolve([]) : new Promise((resolve) => setTimeout(() => resolve([]), delay));
    },
    // Calls through the runner as TypeORM's manager does, so the bounded query is the one used.
    manager: { query: (sql: string) => runner.query(sql) } as unknown as EntityManager,
  };
  const db = { createQueryRunner: () => runner } as unknown as DataSource;
  boundStatements(db, BOUND_MS);
  return { db, runner, connection };
}

/** Hangs on the statements `matches` picks, answers the others at once. */
const hangOn = (matches: (sql: string) => boolean) => (sql: string) => (matches(sql) ? ('never' as const) : 0);

/** Runs `statements` one after the other on a bounded connection; settles with what the last one did. */
function run(db: DataSource, statements: string[], before?: (bound: StatementBound) => void): Promise<unknown> {
  return onConnection(db, 1_000, async (m, bound) => {
    before?.(bound);
    for (const sql of statements) await m.query(sql);
    return 'done';
  });
}

describe('a MySQL statement on a link that stops answering', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('is given up on at its bound, its connection destroyed and released, and nothing more is sent on it', async () => {
    const { db, runner, connection } = standIn(hangOn((sql) => sql.startsWith('UPDATE')));
    const outcome = run(db, ['START TRANSACTION', 'UPDATE db_stock SET count = 1']).catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(BOUND_MS - 1);
    expect(connection.destroyed).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    const err = await outcome;
    expect(err).toBeInstanceOf(StatementTimeoutError);
    expect(connection).toMatchObject({ destroyed: 1, socketsFreed: 1 });
    expect(runner.released).toBe(1);
    // TypeORM's ROLLBACK after the error is refused at once instead of queueing behind the lost statement.
    await expect(runner.query('ROLLBACK')).rejects.toBe(err);
  });

  it.each([
    ['an UPDATE under autocommit', ['UPDATE db_stock SET count = 1'], true],
    ['a COMMIT', ['START TRANSACTION', 'UPDATE db_stock SET count = 1', 'COMMIT'], true],
    ['an UPDATE inside a transaction (no COMMIT sent)', ['START TRANSACTION', 'UPDATE db_stock SET count = 1'], false],
    ['a SELECT … FOR UPDATE', ['START TRANSACTION', 'SELECT count FROM db_stock FOR UPDATE'], false],
    ['a SET under autocommit', ['SET SESSION innodb_lock_wait_timeout = DEFAULT'], false],
  ])('says whether %s may have been applied', async (_what, statements, mayHaveApplied) => {
    const last = statements.at(-1) as string;
    const { db } = standIn(hangOn((sql) => sql === last));
    const outcome = run(db, statements).catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(BOUND_MS);
    expect(await outcome).toMatchObject({ mayHaveApplied });
  });

  it('waits longer for a statement allowed to wait for a row lock (the locking read, up to waitMs)', async () => {
    const { db, connection } = standIn((sql) => (sql.includes('FOR UPDATE') ? BOUND_MS + 4_000 : 0));
    const outcome = run(db, ['START TRANSACTION', 'SELECT count FROM db_stock FOR UPDATE'], (bound) => bound.allowLockWait(5_000));
    await vi.advanceTimersByTimeAsync(BOUND_MS + 4_000);
    await expect(outcome).resolves.toBe('done');
    expect(connection.destroyed).toBe(0);
  });
});

describe('the answer to a statement given up on', () => {
  it('is 503 outcome_unknown when it may have been applied, a refusal (mysql_unavailable) when not', async () => {
    const write = (mayHaveApplied: boolean) =>
      callDependencyWrite('mysql', () => Promise.reject(new StatementTimeoutError('COMMIT', BOUND_MS, mayHaveApplied)));
    await expect(write(true)).rejects.toBeInstanceOf(OutcomeUnknownError);
    await expect(write(false)).rejects.toBeInstanceOf(DependencyDownError);
    await expect(write(false)).rejects.toMatchObject({ dependency: 'mysql' });
    // A read is never an unknown outcome: nothing it sends changes anything.
    await expect(callDependency('mysql', () => Promise.reject(new StatementTimeoutError('SELECT 1', BOUND_MS, false)))).rejects.toBeInstanceOf(
      DependencyDownError,
    );
  });
});
