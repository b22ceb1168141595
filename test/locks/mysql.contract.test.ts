// The MySQL lock table under the lock contract, against a MariaDB of its own. Its lease is a
// timer started before the INSERT: `lost` fires when ttlMs passes with the work unfinished.
import { createDataSource } from '../../src/db/data-source.js';
import { MysqlBasicTableLock } from '../../src/locks/mysql/basic-table-lock.js';
import { MysqlTableLock } from '../../src/locks/mysql/table-lock.js';
import { lockContract } from '../support/lock-contract.js';
import { withServers } from '../support/servers.js';

const servers = withServers({ mysql: true });

lockContract('mysql-lock-table', { reentrant: true, lateRelease: 'refuses', lost: 'fires' }, async () => {
  const db = createDataSource(servers.current.mysql);
  await db.initialize();
  return {
    lock: new MysqlTableLock(db),
    takeAway: async (resource) => void (await db.query('DELETE FROM tb_lock WHERE lock_name = ?', [resource])),
    // Nothing to do: the lease's own timer runs out.
    loseHold: async () => undefined,
    close: () => db.destroy(),
  };
});

// The course's own table (§4.2): not reentrant, and with no lease nothing can fire `lost`. A late
// release deletes by its own row's id, so it refuses once the row is gone.
lockContract('mysql-lock-table-basic', { reentrant: false, lateRelease: 'refuses', lost: 'never' }, async () => {
  const db = createDataSource(servers.current.mysql);
  await db.initialize();
  return {
    lock: new MysqlBasicTableLock(db),
    takeAway: async (resource) => void (await db.query('DELETE FROM tb_lock_basic WHERE lock_name = ?', [resource])),
    loseHold: async () => undefined,
    close: () => db.destroy(),
  };
});
