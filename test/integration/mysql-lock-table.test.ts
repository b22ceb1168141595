// The MySQL lock table: exact on three instances, reentrant, and a live row never reclaimed. A
// crashed holder blocking the others only until its lease (ttlMs) runs out is the faults project's
// (test/faults/course-flaws.test.ts), on its private cluster.
import { createConnection } from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { race } from '../../src/load/race.js';
import { pollUntil } from '../../src/time.js';
import { sharedCluster } from '../support/cluster.js';
import { expectExactRace } from '../support/race-checks.js';
import { createDataSource } from '../../src/db/data-source.js';
import { LockNotHeldError, LockTimeoutError } from '../../src/locks/errors.js';
import { MysqlTableLock } from '../../src/locks/mysql/table-lock.js';

/** A spin lock's wait in the race: longer than the race lasts, so only a starved waiter is refused (below 30 s, the load's own timeout). */
const SPIN_WAIT_MS = 20_000;

describe('mysql-lock-table on three instances behind nginx (shared cluster)', () => {
  // A few dozen sales a second here: 200 units prove exactness with the same 100 contending clients.
  it('110 requests for 100 units: no unit sold twice, refusals within the bound', async () => {
    const cluster = sharedCluster();
    const r = await race({
      target: cluster.nginx,
      stores: cluster,
      strategy: 'mysql-lock-table',
      initial: 100,
      requests: 110,
      connections: 100,
      maxSeconds: 90,
      params: { waitMs: SPIN_WAIT_MS },
    });
    // A spin lock (INSERT of the lock row, retry after retryMs): under 100-way contention an
    // unlucky waiter can lose every poll until its waitMs, and the slower the machine the more
    // often: at the 10 s default, 0–2.1 % at 94–49 req/s, 20 % at 16 req/s beside another race.
    // Waiting 20 s, longer than the whole race takes down to 10 req/s, a waiter gives up only if it
    // is starved that long. Safety stays exact; the refusals are a figure, bounded at 10 %.
    expectExactRace(r, `mysql-lock-table, waitMs ${SPIN_WAIT_MS}`, 0.1);
  });
});

describe('the table lock held twice by one owner (shared cluster MySQL, lock driven directly)', () => {
  it('re-enters by counting, is freed only by the last release, and keeps other owners out meanwhile', async () => {
    const { mysql } = sharedCluster();
    const db = createDataSource({ ...mysql, poolSize: 4, connectTimeoutMs: 5_000 });
    await db.initialize();
    const lock = new MysqlTableLock(db);
    const resource = 'test:table-lock-reentrancy';
    const opts = { ttlMs: 30_000, waitMs: 5_000, retryMs: 10 };
    const row = async () =>
      ((await db.query('SELECT owner, reentrant_count FROM tb_lock WHERE lock_name = ?', [resource])) as { owner: string; reentrant_count: number }[])[0];
    try {
      await db.query('DELETE FROM tb_lock WHERE lock_name = ?', [resource]);
      {
        const as = { ...opts, owner: 'owner-a' };
        const outer = await lock.acquire(resource, as);
        const inner = await lock.acquire(resource, as);
        expect(await row()).toMatchObject({ owner: 'owner-a', reentrant_count: 2 });

        await inner.release();
        expect(await row()).toMatchObject({ owner: 'owner-a', reentrant_count: 1 });
        // Still held: another owner waits and gives up after its waitMs.
        await expect(lock.acquire(resource, { ...opts, waitMs: 300, owner: 'owner-b' })).rejects.toBeInstanceOf(LockTimeoutError);

        await outer.release();
        expect(await row()).toBeUndefined();
        // Released twice is an error, never a silent no-op.
        await expect(outer.release()).rejects.toBeInstanceOf(LockNotHeldError);
      }
      const other = await lock.acquire(resource, { ...opts, owner: 'owner-b' });
      expect(await row()).toMatchObject({ owner: 'owner-b', reentrant_count: 1 });
      await other.release();

      // The holds may end in either order: the outer one first leaves the inner still holding.
      {
        const as = { ...opts, owner: 'owner-c' };
        const outer = await lock.acquire(resource, as);
        const inner = await lock.acquire(resource, as);
        await outer.release();
        expect(await row()).toMatchObject({ owner: 'owner-c', reentrant_count: 1 });
        await expect(lock.acquire(resource, { ...opts, waitMs: 300, owner: 'owner-d' })).rejects.toBeInstanceOf(LockTimeoutError);
        await inner.release();
        expect(await row()).toBeUndefined();
      }
    } finally {
      await db.destroy();
    }
  });
});

describe('a live row that appears between the peek and the reclaim (shared cluster MySQL, lock driven directly)', () => {
  it('is never reclaimed: its holder keeps the lock, and the contender waits until its waitMs', async () => {
    const { mysql } = sharedCluster();
    const db = createDataSource({ ...mysql, poolSize: 4, connectTimeoutMs: 5_000 });
    await db.initialize();
    // The other holder's connection: its takeover stays uncommitted until the contender's reclaim waits on it.
    const other = await createConnection(mysql);
    const lock = new MysqlTableLock(db);
    const resource = 'test:table-lock-live-row';
    const rows = async () => (await db.query('SELECT id, owner FROM tb_lock WHERE lock_name = ?', [resource])) as { id: string; owner: string }[];
    try {
      // A crashed holder's row, its lease over: what the contender's peek will see.
      await db.query('DELETE FROM tb_lock WHERE lock_name = ?', [resource]);
      await db.query("INSERT INTO tb_lock (lock_name, owner, expires_at) VALUES (?, 'crashed', NOW(3) - INTERVAL 1 SECOND)", [resource]);
      // Another holder reclaims it and inserts its own live row, in a transaction not yet committed:
      // its row locks hold up any DELETE of the name, and a plain read still sees the expired row.
      await other.query('BEGIN');
      await other.query('DELETE FROM tb_lock WHERE lock_name = ?', [resource]);
      await other.query("INSERT INTO tb_lock (lock_name, owner, expires_at) VALUES (?, 'live-holder', NOW(3) + INTERVAL 60 SECOND)", [resource]);
      const [[inserted]] = (await other.query('SELECT LAST_INSERT_ID() AS id')) as unknown as [{ id: number }[]];

      const contender = lock.acquire(resource, { ttlMs: 30_000, waitMs: 3_000, retryMs: 10, owner: 'contender' }).then(
        (lease) => lease,
        (err: unknown) => err,
      );
      // The contender peeked (expired) and sent its reclaim, which now waits on the other holder's row locks.
      const reclaimWaits = async () => {
        const [found] = await other.query(
          "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND INFO LIKE 'DELETE FROM `tb_lock`%'",
        );
        return Number((found as { n: unknown }[])[0]?.n ?? 0) === 1;
      };
      expect(await pollUntil(reclaimWaits, 5_000, 5)).toBe(true);
      // The live row lands between the contender's peek and its reclaim.
      await other.query('COMMIT');

      const outcome = await contender;
      expect(outcome).toBeInstanceOf(LockTimeoutError);
      expect(await rows()).toEqual([{ id: String(inserted?.id), owner: 'live-holder' }]);
    } finally {
      await db.query('DELETE FROM tb_lock WHERE lock_name = ?', [resource]);
      await other.end();
      await db.destroy();
    }
  });
});
