// The MySQL lock table's statements per attempt, as the driver sends them, against a MariaDB of its
// own. The contract shows the lock excludes; it cannot show that a waiter only looks while a live
// row holds the name (a failing INSERT share-locks the holder's row, and a hundred of them starve
// its DELETE), nor that an expired row is reclaimed and the name taken in the same attempt: a lock
// that skipped the look or the reclaim's result would still exclude, sending more. Each acquire here
// has waitMs 0, so it is exactly one attempt: no timing decides what is counted.
import { createConnection, type Connection } from 'mysql2/promise';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDataSource } from '../../src/db/data-source.js';
import { LockNotHeldError, LockTimeoutError } from '../../src/locks/errors.js';
import { MysqlTableLock } from '../../src/locks/mysql/table-lock.js';
import { withServers } from '../support/servers.js';
import { statementLogger } from '../support/statement-log.js';

const servers = withServers({ mysql: true });

const NAME = 'test:table-lock-statements';
/** Rows of other names, there throughout: no statement of NAME's may see or touch them. */
const OTHERS = [
  { lock_name: 'test:other-live', owner: 'other-live', live: true },
  { lock_name: 'test:other-expired', owner: 'other-expired', live: false },
];
const ONE_ATTEMPT = { ttlMs: 30_000, waitMs: 0, retryMs: 10 };

let db: DataSource;
/** The test's own connection, for rows and reads the lock must not count. */
let own: Connection;
let lock: MysqlTableLock;
/** Every statement the lock's data source sent since the last reset, named by the lock's own list. */
const sent: string[] = [];

beforeAll(async () => {
  const { host, port, user, password, database } = servers.current.mysql;
  db = createDataSource({ ...servers.current.mysql, poolSize: 2 });
  await db.initialize();
  lock = new MysqlTableLock(db);
  const sql = lock.sql();
  const names = new Map<string, string>([
    [sql.acquire[0]!, 'peek'],
    [sql.acquire[1]!, 'reclaim'],
    [sql.acquire[2]!, 'insert'],
    [sql.release[0]!, 'count down'],
    [sql.release[1]!, 'delete own'],
  ]);
  db.setOptions({ logger: statementLogger((query) => void sent.push(names.get(query) ?? query)) });
  own = await createConnection({ host, port, user, password, database });
});

afterAll(async () => {
  await own?.end();
  await db?.destroy();
});

beforeEach(async () => {
  await own.query('DELETE FROM tb_lock');
  for (const o of OTHERS) {
    await own.query(`INSERT INTO tb_lock (lock_name, owner, expires_at) VALUES (?, ?, NOW(3) ${o.live ? '+' : '-'} INTERVAL 60 SECOND)`, [
      o.lock_name,
      o.owner,
    ]);
  }
  sent.length = 0;
});

interface Row {
  lock_name: string;
  owner: string;
}
const byName = (a: Row, b: Row) => a.lock_name.localeCompare(b.lock_name);
const rows = async () => {
  const [found] = await own.query('SELECT lock_name, owner FROM tb_lock');
  return (found as Row[]).sort(byName);
};
/** The table as it should be: the other names' rows as they were, and NAME's `mine`. */
const table = (...mine: Row[]) => [...OTHERS.map(({ lock_name, owner }) => ({ lock_name, owner })), ...mine].sort(byName);

describe('the lock table’s statements, one attempt at a time', () => {
  it('a free name: one look, one INSERT; the release counts down, then deletes its own row', async () => {
    const lease = await lock.acquire(NAME, { ...ONE_ATTEMPT, owner: 'taker' });
    expect(sent).toEqual(['peek', 'insert']);
    expect(await rows()).toEqual(table({ lock_name: NAME, owner: 'taker' }));
    sent.length = 0;
    await lease.release();
    expect(sent).toEqual(['count down', 'delete own']);
    expect(await rows()).toEqual(table());
  });

  it('a live row holds the name: each attempt only looks (no reclaim, no INSERT) and gives up', async () => {
    await own.query("INSERT INTO tb_lock (lock_name, owner, expires_at) VALUES (?, 'holder', NOW(3) + INTERVAL 60 SECOND)", [NAME]);
    for (let attempt = 1; attempt <= 3; attempt++) {
      await expect(lock.acquire(NAME, { ...ONE_ATTEMPT, owner: 'waiter' })).rejects.toBeInstanceOf(LockTimeoutError);
      expect(sent).toEqual(Array.from({ length: attempt }, () => 'peek'));
    }
    expect(await rows()).toEqual(table({ lock_name: NAME, owner: 'holder' }));
  });

  it('a row whose lease ran out: reclaimed and the name taken in the same attempt (look, reclaim, INSERT)', async () => {
    await own.query("INSERT INTO tb_lock (lock_name, owner, expires_at) VALUES (?, 'crashed', NOW(3) - INTERVAL 1 SECOND)", [NAME]);
    const lease = await lock.acquire(NAME, { ...ONE_ATTEMPT, owner: 'successor' });
    expect(sent).toEqual(['peek', 'reclaim', 'insert']);
    // Only NAME's expired row went; the other name's expired row is its own waiters' to reclaim.
    expect(await rows()).toEqual(table({ lock_name: NAME, owner: 'successor' }));
    await lease.release();
    expect(await rows()).toEqual(table());
  });

  it('a release after the row was reclaimed deletes nothing of the new holder’s, and says so', async () => {
    const lease = await lock.acquire(NAME, { ...ONE_ATTEMPT, ttlMs: 60_000, owner: 'first' });
    // Its lease ended (made so in the table) and another owner reclaimed the name and holds it.
    await own.query("UPDATE tb_lock SET expires_at = NOW(3) - INTERVAL 1 SECOND WHERE lock_name = ? AND owner = 'first'", [NAME]);
    const next = await lock.acquire(NAME, { ...ONE_ATTEMPT, owner: 'second' });
    await expect(lease.release()).rejects.toBeInstanceOf(LockNotHeldError);
    expect(await rows()).toEqual(table({ lock_name: NAME, owner: 'second' }));
    await next.release();
    expect(await rows()).toEqual(table());
  });
});
