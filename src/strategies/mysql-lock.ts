import { MysqlTableLock } from '../locks/mysql/table-lock.js';
import { declareStrategies } from './declare.js';
import type { FamilyFactory } from './strategy.js';

/** The lock table (course §4): mutual exclusion from a unique key, in the database everyone already shares. */
export const mysqlLockFamily: FamilyFactory = async (deps) => {
  const lock = new MysqlTableLock(deps.db);
  return {
    strategies: declareStrategies(deps, [
      {
        name: 'mysql-lock-table',
        family: 'mysql-lock',
        course: '§4',
        description: 'INSERT a row with a unique lock_name to lock, DELETE it (owner-checked) to unlock; retry every retryMs; expired rows (ttlMs) are reclaimed.',
        expected: {
          oneInstance: 'exact',
          threeInstances: 'exact',
          // the lease's expiry aborts the holder's write (503 lock_lost) instead of letting it oversell
          workOverTtl: 'exact',
          note: "slowly: every attempt is a round trip to MySQL; a crashed holder blocks the others until its lease (ttlMs) expires",
        },
        lock,
        faultLab: true,
        // Lock, read-then-write on the row, unlock (the count-down matches nothing at one hold).
        lockSql: lock.sql(),
      },
    ]),
    clearLocks: () => lock.clear(),
  };
};
