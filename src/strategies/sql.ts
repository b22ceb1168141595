import { LockTimeoutError } from '../locks/errors.js';
import { DeadlockError, isDeadlock, isLockWaitTimeout, type RowLockMode } from '../stock/mysql-stock.js';
import { sleep } from '../time.js';
import { declareStrategies } from './declare.js';
import { retryOnConflict } from './retry.js';
import { takeOneUnit } from './row-lock.js';
import type { DeductRequest, DeductResult, FamilyFactory } from './strategy.js';

/** MySQL's own answers (course §1.7): one statement, a row lock, a version check. */
export const sqlFamily: FamilyFactory = async (deps) => {
  const stock = deps.stock.mysql;
  /** Read the row under its lock (pause=after-read stops here, the lock held), work, write, commit. */
  const lockedRowDeduction = async (req: DeductRequest, mode: RowLockMode): Promise<DeductResult> => {
    try {
      const outcome = await stock.withRowLocked(req.lock.waitMs, takeOneUnit(req), req.requestId, mode);
      return { outcome };
    } catch (err) {
      // The row lock's wait ran out (innodb_lock_wait_timeout, from waitMs): 503 lock_timeout.
      if (isLockWaitTimeout(err)) throw new LockTimeoutError('db_stock row', req.lock.waitMs);
      if (isDeadlock(err)) throw new DeadlockError('db_stock row');
      throw err;
    }
  };
  return {
    strategies: declareStrategies(deps, [
      {
        name: 'sql-update',
        family: 'sql',
        course: '§1.7',
        description: {
          en: 'One conditional UPDATE … SET count = count − 1 WHERE count >= 1; the row lock serializes it.',
          zh: '一条带条件的 UPDATE … SET count = count − 1 WHERE count >= 1；靠行锁串行执行。',
        },
        expected: { oneInstance: 'exact', threeInstances: 'exact' },
        stores: ['mysql'],
        sql: stock.sql.decrement,
        deduct: async (req) => {
          // No read precedes the write, so the work happens before the statement, outside any lock.
          if (req.workMs > 0) await sleep(req.workMs);
          return { outcome: (await stock.decrementIfAvailable(req.requestId)) ? 'deducted' : 'sold_out' };
        },
      },
      {
        name: 'sql-for-update',
        family: 'sql',
        course: '§1.7',
        description: {
          en: 'SELECT … FOR UPDATE then UPDATE in one transaction: a pessimistic row lock.',
          zh: '在一个事务里先 SELECT … FOR UPDATE 再 UPDATE：悲观锁，锁住这一行。',
        },
        expected: { oneInstance: 'exact', threeInstances: 'exact' },
        stores: ['mysql'],
        sql: stock.sql.forUpdate,
        pausePoints: ['after-read'],
        deduct: (req) => lockedRowDeduction(req, 'exclusive'),
      },
      {
        name: 'sql-share-mode',
        family: 'sql',
        course: '§1.7',
        description: {
          en: 'SELECT … LOCK IN SHARE MODE then UPDATE in one transaction: a shared row lock the write must upgrade (course §1.7.2).',
          zh: '在一个事务里先 SELECT … LOCK IN SHARE MODE 再 UPDATE：先加共享锁，写入时必须升级为排它锁（课程 §1.7.2）。',
        },
        expected: {
          oneInstance: 'exact',
          threeInstances: 'exact',
          note: 'two readers holding the shared lock both upgrade: InnoDB rolls one back as a deadlock (503 deadlock, nothing sold), so under contention most requests are refused',
        },
        stores: ['mysql'],
        sql: stock.sql.shareMode,
        pausePoints: ['after-read'],
        deduct: (req) => lockedRowDeduction(req, 'shared'),
      },
      {
        name: 'sql-optimistic',
        family: 'sql',
        course: '§1.7',
        description: {
          en: 'Read count and version, write only if the version is unchanged; retry with jittered backoff.',
          zh: '读出库存和版本号，只有版本号没变才写入，否则随机退避后重试：乐观锁。',
        },
        expected: { oneInstance: 'exact', threeInstances: 'exact', note: 'slows down sharply as concurrency grows' },
        stores: ['mysql'],
        // TypeORM's own optimistic check, setLock('optimistic', version), compares versions on a
        // SELECT only: two readers of version v both pass it and both write (a lost update, see
        // test/integration/sql-orm.test.ts). The check that counts is the UPDATE's `WHERE version = ?`, whose
        // affected rows decide.
        sql: stock.sql.optimistic,
        deduct: async (req) => {
          const deadline = Date.now() + req.lock.waitMs;
          const outcome = await retryOnConflict(deadline, req.lock, async () => {
            const row = await stock.readVersioned();
            if (!row || row.count <= 0) return 'sold_out' as const;
            if (req.workMs > 0) await sleep(req.workMs);
            return (await stock.compareAndSet(row.version, row.count - 1, req.requestId)) ? ('deducted' as const) : 'conflict';
          });
          return { outcome };
        },
      },
    ]),
  };
};
