import { MysqlTableLock } from '../locks/mysql/table-lock.js';
import { guarded } from './guarded.js';
import type { FamilyFactory } from './strategy.js';

/** The lock table (course §4): mutual exclusion from a unique key, in the database everyone already shares. */
export const mysqlLockFamily: FamilyFactory = async (deps) => {
  const lock = new MysqlTableLock(deps.db);
  const lockSql = lock.sql();
  return {
    strategies: [
      {
        name: 'mysql-lock-table',
        family: 'mysql-lock',
        description: 'INSERT a row with a unique lock_name to lock, DELETE it (owner-checked) to unlock; retry every retryMs; expired rows (ttlMs) are reclaimed.',
        expected: {
          oneInstance: 'exact',
          threeInstances: 'exact',
          // the lease's expiry aborts the holder's write (503 lock_lost) instead of letting it oversell
          workOverTtl: 'exact',
          note: "slowly: every attempt is a round trip to MySQL; a crashed holder blocks the others until its lease (ttlMs) expires",
          // A row inserted by an INSERT whose reply was lost is reclaimed once its lease ends.
          faults: { holderCrash: 'after ttlMs', holderPause: 'oversells', holderPauseFenced: 'exact', lostReply: 'expires after ttlMs' },
        },
        stores: ['mysql', 'redis'],
        // Lock, read-then-write on the row, unlock (the count-down matches nothing at one hold).
        sql: [...lockSql.acquire, ...deps.stock.mysql.sql.readThenWrite, ...lockSql.release],
        ...guarded(lock, deps),
        sqlFenced: [...lockSql.acquire, ...deps.stock.mysql.sql.readThenWriteFenced['lock-table'], ...lockSql.release],
      },
    ],
    clearLocks: () => lock.clear(),
  };
};
