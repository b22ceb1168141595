// PostgreSQL as the stock store and as the lock (store=postgres): its advisory locks around the
// shared read-then-write, its row lock, its one-statement decrement, and the advisory-lock package.
import { isPgLockTimeout, openPostgresPool } from '../db/postgres-pool.js';
import { LockTimeoutError } from '../locks/errors.js';
import type { Lease, Lock } from '../locks/lock.js';
import { LibAdvisoryLock } from '../locks/library/advisory-lock.js';
import { PgAdvisorySessionLock } from '../locks/pg/session-lock.js';
import { PgAdvisoryXactLock } from '../locks/pg/xact-lock.js';
import { STOCK_LOCK_RESOURCE } from '../stock/product.js';
import { sleep } from '../time.js';
import { declareStrategy } from './declare.js';
import { guardedDeduction } from './guarded.js';
import { takeOneUnit } from './row-lock.js';
import type { Expected, FamilyFactory, FaultOutcomes, LockedDeduction, SharedDeps, Strategy } from './strategy.js';

/** How long GET /health waits for PostgreSQL, a free pooled connection included. */
const HEALTH_WAIT_MS = 500;

type PgLocked<L extends Lease> = Omit<LockedDeduction<L>, 'family' | 'course' | 'expected' | 'lockSql' | 'faultLab'> & {
  expected: Omit<Expected, 'faults'>;
  lockSql: { acquire: readonly string[]; release: readonly string[] };
  /** The fault lab measures it (holder-crash, holder-pause): GET /strategies declares what it expects. */
  faultLab?: true;
};

/**
 * An advisory lock belongs to the database session that took it: a holder's process that dies takes
 * its session with it at once (the kernel closes its sockets), and one only frozen keeps it, so
 * nobody else gets the lock meanwhile and its late write is the only one.
 */
function sessionBoundOutcomes(lock: Lock): FaultOutcomes {
  return { holderCrash: 'at once, with its database session', holderPause: 'exact', ...(lock.fencing && { holderPauseFenced: 'exact' as const }) };
}

/**
 * A lock strategy on the Postgres row: the shared guarded read-then-write (guarded.ts), as
 * declare.ts makes the others, but on store postgres alone, listing the statements sent to
 * PostgreSQL: the lock's, the row's, the lock's release.
 */
function pgLocked<L extends Lease>(deps: SharedDeps, declared: PgLocked<L>): Strategy {
  const { name, description, lock, lockSql } = declared;
  const { oneInstance, threeInstances, note } = declared.expected;
  const { readThenWrite, readThenWriteFenced } = deps.stock.postgres.sql;
  return {
    name,
    family: 'postgres',
    course: 'beyond the course',
    description,
    expected: { oneInstance, threeInstances, ...(note && { note }), ...(declared.faultLab && { faults: sessionBoundOutcomes(lock) }) },
    stores: ['postgres'],
    sql: [...lockSql.acquire, ...readThenWrite, ...lockSql.release],
    // Present on every lock strategy: the fault lab's pause points apply; fenced=1 needs tokens.
    ...(lock.fencing
      ? { guard: { fencing: lock.fencing }, sqlFenced: [...lockSql.acquire, ...readThenWriteFenced[lock.fencing], ...lockSql.release] }
      : { guard: {} }),
    // Its fault outcomes are the session's (above), not a lock expiry's: the deduction needs neither.
    deduct: guardedDeduction(deps, { ...declared, family: 'postgres', course: 'beyond the course', faultLab: false }),
  };
}

export const postgresFamily: FamilyFactory = async (deps) => {
  const { config } = deps;
  const stock = deps.stock.postgres;
  const cfg = config.postgres;
  // The locks' connections apart from the stock's: a holder needs one of each, and waiters holding
  // every stock connection would leave the holder none to deduct with.
  const lockPool = openPostgresPool(cfg, cfg.poolSize, `stocklab-${config.instanceId}-locks`);
  // The session lock's own pool: its flaw is this pool handing its connections round.
  const sessionPool = openPostgresPool(cfg, cfg.poolSize, `stocklab-${config.instanceId}-session-lock`);
  const xact = new PgAdvisoryXactLock(lockPool);
  const tryOnly = new PgAdvisoryXactLock(lockPool, 'try');
  const session = new PgAdvisorySessionLock(sessionPool);
  const library = new LibAdvisoryLock(cfg);

  const strategies: Strategy[] = [
    pgLocked(deps, {
      name: 'pg-advisory-xact',
      description: {
        en: 'A transaction-level advisory lock: BEGIN, pg_advisory_xact_lock(key) on a connection held for the whole hold (lock_timeout = waitMs), read-then-write, COMMIT ends the lock. Fencing tokens from a sequence.',
        zh: '事务级咨询锁（advisory lock）：在整个持锁期间占住一个连接，BEGIN 后 pg_advisory_xact_lock(key)（lock_timeout = waitMs），先查后扣，COMMIT 时锁随事务释放。防护令牌（fencing token）取自一个序列。',
      },
      expected: { oneInstance: 'exact', threeInstances: 'exact', note: 'a holder that dies ends its session and its lock with it: no lease to wait out' },
      lock: xact,
      lockSql: xact.sql(),
      faultLab: true,
    }),
    pgLocked(deps, {
      name: 'pg-advisory-session',
      description: {
        en: 'A session-level advisory lock taken the naive way: pg_advisory_lock(key) on whatever pooled connection comes, pg_advisory_unlock(key) on whatever comes next. The lock belongs to the connection, not the request.',
        zh: '用最朴素的方式加会话级咨询锁：从连接池随便拿一个连接执行 pg_advisory_lock(key)，解锁时再随便拿一个连接执行 pg_advisory_unlock(key)。锁属于连接（会话），而不属于请求。',
      },
      expected: {
        oneInstance: 'oversells',
        threeInstances: 'oversells',
        // Measured through nginx: workMs 20, 200 requests for 100 units, 20 clients: 39 sold, 33 deducted, the rest lock_timeout.
        // At workMs 0 the leak shows more than the oversell (330 requests: 27 sold, 303 lock_timeout, none oversold).
        note: 'an unlock on another connection answers false and the lock leaks; a request handed the holding connection re-enters at once (session locks are reentrant), so two sell together once the work takes time (workMs > 0), while requests on the other connections wait out waitMs (503 lock_timeout)',
      },
      lock: session,
      lockSql: session.sql(),
      faultLab: true,
    }),
    pgLocked(deps, {
      name: 'pg-try-advisory',
      description: {
        en: 'pg_try_advisory_xact_lock(key): never waits. Held by another, the request is refused at once (503 lock_timeout, nothing sold); granted, as pg-advisory-xact.',
        zh: 'pg_try_advisory_xact_lock(key)：从不等待。锁被别人持有时立即拒绝（503 lock_timeout，什么也没卖）；拿到锁则与 pg-advisory-xact 相同。',
      },
      expected: { oneInstance: 'exact', threeInstances: 'exact', note: 'under contention most requests are refused at once: exact, and slow to sell out' },
      lock: tryOnly,
      lockSql: tryOnly.sql(),
      faultLab: true,
    }),
    declareStrategy(deps, {
      name: 'pg-for-update',
      family: 'postgres',
      course: 'beyond the course',
      description: {
        en: 'SELECT … FOR UPDATE then UPDATE in one PostgreSQL transaction: a pessimistic row lock (lock_timeout = waitMs).',
        zh: '在一个 PostgreSQL 事务里先 SELECT … FOR UPDATE 再 UPDATE：悲观锁，锁住这一行（lock_timeout = waitMs）。',
      },
      expected: { oneInstance: 'exact', threeInstances: 'exact' },
      stores: ['postgres'],
      sql: stock.sql.forUpdate,
      pausePoints: ['after-read'],
      deduct: async (req) => {
        try {
          const outcome = await stock.withRowLocked(req.lock.waitMs, takeOneUnit(req), req.requestId);
          return { outcome };
        } catch (err) {
          // The row lock's wait ran out (lock_timeout, from waitMs): 503 lock_timeout.
          if (isPgLockTimeout(err)) throw new LockTimeoutError('db_stock row', req.lock.waitMs);
          throw err;
        }
      },
    }),
    declareStrategy(deps, {
      name: 'pg-update',
      family: 'postgres',
      course: 'beyond the course',
      description: {
        en: 'One conditional UPDATE … SET count = count − 1 WHERE count >= 1 on PostgreSQL; the row lock serializes it.',
        zh: '在 PostgreSQL 上执行一条带条件的 UPDATE … SET count = count − 1 WHERE count >= 1；靠行锁串行执行。',
      },
      expected: { oneInstance: 'exact', threeInstances: 'exact' },
      stores: ['postgres'],
      sql: stock.sql.decrement,
      deduct: async (req) => {
        // No read precedes the write, so the work happens before the statement, outside any lock.
        if (req.workMs > 0) await sleep(req.workMs);
        return { outcome: (await stock.decrementIfAvailable(req.requestId)) ? 'deducted' : 'sold_out' };
      },
    }),
    pgLocked(deps, {
      name: 'lib-advisory-lock',
      description: {
        en: "The advisory-lock package's mutex: lock() opens a connection of its own and waits in pg_advisory_lock (lock_timeout = waitMs), unlock() runs pg_advisory_unlock on it and closes it.",
        zh: 'advisory-lock 库的互斥锁：lock() 自己新开一个连接并在 pg_advisory_lock 上等待（lock_timeout = waitMs），unlock() 在同一个连接上执行 pg_advisory_unlock 后关闭连接。',
      },
      expected: { oneInstance: 'exact', threeInstances: 'exact', note: 'a connection per acquire, and no fencing token' },
      lock: library,
      // The package's own statements, its key (two int4 halves of a SHA-256 of the name) written in.
      lockSql: library.sql(STOCK_LOCK_RESOURCE),
    }),
  ];

  return {
    strategies,
    // What pg-advisory-session leaked: its sessions end, and their locks with them.
    clearLocks: () => session.clear(STOCK_LOCK_RESOURCE),
    health: async () => ({ postgres: await stock.reachable(HEALTH_WAIT_MS) }),
    async close() {
      await Promise.allSettled([lockPool.end(), sessionPool.end()]);
    },
  };
};
