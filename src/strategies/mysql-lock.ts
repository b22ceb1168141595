import { MysqlBasicTableLock } from '../locks/mysql/basic-table-lock.js';
import { MysqlTableLock } from '../locks/mysql/table-lock.js';
import { declareStrategies } from './declare.js';
import type { FamilyFactory } from './strategy.js';

/** The lock table (course §4): mutual exclusion from a unique key, in the database everyone already shares. */
export const mysqlLockFamily: FamilyFactory = async (deps) => {
  const lock = new MysqlTableLock(deps.db);
  const basic = new MysqlBasicTableLock(deps.db);
  return {
    strategies: declareStrategies(deps, [
      {
        name: 'mysql-lock-table-basic',
        family: 'mysql-lock',
        course: '§4',
        description: {
          en: 'The course’s lock table as §4.2 writes it: INSERT a row with a unique lock_name to lock, DELETE it by id to unlock, retry every retryMs. No expiry, not reentrant.',
          zh: '照课程 §4.2 写的锁表：INSERT 一行唯一的 lock_name 来加锁，按 id DELETE 来解锁，每隔 retryMs 重试。没有过期时间，不可重入。',
        },
        expected: {
          oneInstance: 'exact',
          threeInstances: 'exact',
          workOverTtl: 'exact',
          note: 'the §4.3 weaknesses kept: a holder that dies keeps its row for good (503 lock_timeout until a reset), and a nested acquire by the same request waits for itself',
        },
        lock: basic,
        faultLab: true,
        lockSql: basic.sql(),
      },
      {
        name: 'mysql-lock-table',
        family: 'mysql-lock',
        course: '§4',
        description: {
          en: 'INSERT a row with a unique lock_name to lock, DELETE it (owner-checked) to unlock; retry every retryMs; expired rows (ttlMs) are reclaimed.',
          zh: 'INSERT 一行唯一的 lock_name 来加锁，DELETE（先核对持锁者）来解锁；每隔 retryMs 重试；过期（ttlMs）的行会被回收。',
        },
        expected: {
          oneInstance: 'exact',
          threeInstances: 'exact',
          // the lease's expiry aborts the holder's write (503 lock_lost) instead of letting it oversell
          workOverTtl: 'exact',
          note: 'slowly: every attempt is a round trip to MySQL; a crashed holder blocks the others until its lease (ttlMs) expires',
        },
        lock,
        faultLab: true,
        // Lock, read-then-write on the row, unlock (the count-down matches nothing at one hold).
        lockSql: lock.sql(),
      },
    ]),
    clearLocks: async () => {
      await Promise.all([lock.clear(), basic.clear()]);
    },
  };
};
