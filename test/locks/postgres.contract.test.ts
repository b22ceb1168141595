// PostgreSQL's advisory locks, against a PostgreSQL of its own: the transaction lock and the
// advisory-lock package under the lock contract, the never-waiting try lock under the cases that
// apply to it, the session lock's pooled leak shown step by step, and the Postgres stock's rules.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresPoolBusyError, openPostgresPool } from '../../src/db/postgres-pool.js';
import { DependencyDownError } from '../../src/dependency.js';
import { LockNotHeldError, LockTimeoutError } from '../../src/locks/errors.js';
import type { AcquireOptions, Lease } from '../../src/locks/lock.js';
import { LibAdvisoryLock } from '../../src/locks/library/advisory-lock.js';
import { advisoryKey, PG_LOCKS_KEY_MATCH } from '../../src/locks/pg/key.js';
import { PgAdvisorySessionLock, SESSION_NAMESPACE } from '../../src/locks/pg/session-lock.js';
import { PgAdvisoryXactLock, XACT_NAMESPACE } from '../../src/locks/pg/xact-lock.js';
import { withLock } from '../../src/locks/scope.js';
import { PostgresStock } from '../../src/stock/postgres-stock.js';
import { sleep } from '../../src/time.js';
import { lockContract } from '../support/lock-contract.js';
import { withServers } from '../support/servers.js';

const servers = withServers({ postgres: true });

/** A client of the test's own, outside every pool under test: it watches and intervenes. */
async function adminClient(): Promise<pg.Client> {
  const c = new pg.Client({ ...servers.current.postgres });
  c.on('error', () => undefined);
  await c.connect();
  return c;
}

/** The backends holding (granted) the advisory key of `namespace:resource`. */
async function holders(admin: pg.Client, namespace: string, resource: string): Promise<number[]> {
  const r = await admin.query<{ pid: number }>(`SELECT pid FROM pg_locks WHERE ${PG_LOCKS_KEY_MATCH} AND granted ORDER BY pid`, [
    advisoryKey(namespace, resource).toString(),
  ]);
  return r.rows.map((row) => row.pid);
}

/** Ends the sessions holding the key: their locks end with them, behind the holders' backs. */
async function endHolders(admin: pg.Client, namespace: string, resource: string): Promise<void> {
  const pids = await holders(admin, namespace, resource);
  expect(pids.length).toBeGreaterThan(0);
  for (const pid of pids) await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  // pg_terminate_backend only signals: wait until the server has let go.
  for (let i = 0; i < 100 && (await holders(admin, namespace, resource)).length > 0; i++) await sleep(20);
}

const OPTS = { ttlMs: 30_000, retryMs: 10 } as const;
const as = (owner: string, waitMs: number): AcquireOptions => ({ ...OPTS, waitMs, owner });

// Not reentrant: a second acquire needs a second connection, whose session waits for the first's.
// The hold can be taken away (its session ended), and the holder learns it: its connection fails.
lockContract('pg-advisory-xact', { reentrant: false, lateRelease: 'refuses', lost: 'fires' }, async () => {
  const pool = openPostgresPool(servers.current.postgres, 60);
  const admin = await adminClient();
  return {
    lock: new PgAdvisoryXactLock(pool),
    takeAway: (resource) => endHolders(admin, XACT_NAMESPACE, resource),
    loseHold: (resource) => endHolders(admin, XACT_NAMESPACE, resource),
    close: async () => {
      await admin.end();
      await pool.end();
    },
  };
});

// The package opens a connection per lock(); nothing may end one while it is held (its
// connections listen for no error: the test process would die), so no hold is taken away here,
// and it cannot learn of a loss.
lockContract('lib-advisory-lock', { reentrant: false, lost: 'never' }, async () => ({ lock: new LibAdvisoryLock(servers.current.postgres) }));

describe('pg-try-advisory (never waits)', () => {
  // Of the contract, the cases whose waits are the subject (waits until waitMs, 50 contenders each
  // getting through) do not apply: it never waits, by design. These do, restated for a lock that
  // refuses at once: exclusion, a refusal that is immediate and leaves nothing behind, no re-entry,
  // a second release refused, and tokens that grow.
  let pool: pg.Pool;
  beforeAll(() => {
    pool = openPostgresPool(servers.current.postgres, 60);
  });
  afterAll(() => pool.end());
  const lock = () => new PgAdvisoryXactLock(pool, 'try');

  it('refuses at once while another holds it, whatever waitMs, and grants once it is free', async () => {
    const r = `try-${Date.now()}-a`;
    const a = await lock().acquire(r, as('A', 10_000));
    const t0 = Date.now();
    await expect(lock().acquire(r, as('B', 10_000))).rejects.toBeInstanceOf(LockTimeoutError);
    expect(Date.now() - t0).toBeLessThan(1_000);
    // The same owner does not get in either: a second session.
    await expect(lock().acquire(r, as('A', 10_000))).rejects.toBeInstanceOf(LockTimeoutError);
    await a.release();
    await expect(a.release()).rejects.toBeInstanceOf(LockNotHeldError);
    const b = await lock().acquire(r, as('B', 0));
    await b.release();
  });

  it('excludes: of 50 owners at once, never two inside; the others are refused, not queued', async () => {
    const r = `try-${Date.now()}-b`;
    let inside = 0;
    let mostInside = 0;
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        withLock(lock(), r, as(`owner-${i}`, 10_000), async () => {
          inside++;
          mostInside = Math.max(mostInside, inside);
          await sleep(20);
          inside--;
        }),
      ),
    );
    const refused = results.filter((x) => x.status === 'rejected');
    expect(mostInside).toBe(1);
    expect(refused.every((x) => x.reason instanceof LockTimeoutError)).toBe(true);
    expect(results.length - refused.length).toBeGreaterThanOrEqual(1);
  });

  it('issues a fencing token per grant, larger than every earlier one, shared with pg-advisory-xact', async () => {
    const r = `try-${Date.now()}-c`;
    const a = await lock().acquire(r, as('A', 0));
    const tokenA = await a.fencingToken!();
    await a.release();
    const b = await new PgAdvisoryXactLock(pool).acquire(r, as('B', 1_000));
    expect(await b.fencingToken!()).toBeGreaterThan(tokenA);
    await b.release();
  });
});

describe('pg-advisory-session: the session-level lock on a pool of 2 (the flaw, kept)', () => {
  let pool: pg.Pool;
  let admin: pg.Client;
  /** Server messages each pooled session received, by backend pid (the unlock's WARNING lands here). */
  const notices = new Map<number, string[]>();
  const pidOf = async (c: pg.PoolClient): Promise<number> => (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

  beforeAll(async () => {
    admin = await adminClient();
  });
  afterAll(() => admin.end());
  afterEach(async () => {
    await pool.end();
    notices.clear();
  });

  /** A pool of two connections, both open: idle connections are handed out last-returned first (pg-pool's idle list is a stack). */
  async function twoConnections(): Promise<{ lock: PgAdvisorySessionLock; pids: number[] }> {
    pool = openPostgresPool(servers.current.postgres, 2);
    pool.on('connect', (client) => {
      client.on('notice', (n) => {
        const pid = (client as unknown as { processID: number }).processID;
        notices.set(pid, [...(notices.get(pid) ?? []), n.message ?? '']);
      });
    });
    const [c1, c2] = await Promise.all([pool.connect(), pool.connect()]);
    const pids = [await pidOf(c1!), await pidOf(c2!)];
    c1!.release();
    c2!.release();
    return { lock: new PgAdvisorySessionLock(pool), pids };
  }

  /** The pooled connection the pool hands out next, checked out and held by the test. */
  async function takeNext(): Promise<{ client: pg.PoolClient; pid: number }> {
    const client = await pool.connect();
    return { client, pid: await pidOf(client) };
  }

  it('a second request handed the holding connection gets in at once, while the first is still inside', async () => {
    const { lock, pids } = await twoConnections();
    const r = `session-${Date.now()}-a`;
    const first = await lock.acquire(r, as('first', 1_000));
    const [holder] = await holders(admin, SESSION_NAMESPACE, r);
    // The acquire's connection went back to the pool holding the lock, on top of the idle stack.
    expect(pids).toContain(holder);
    // The next request is handed that same connection: its session holds the lock, so it "takes"
    // it again at once (session advisory locks are reentrant), not after waitMs.
    const t0 = Date.now();
    const second = await lock.acquire(r, as('second', 1_000));
    expect(Date.now() - t0).toBeLessThan(500);
    // Two holders inside together, and one session on the server: the lock counts it twice.
    expect(await holders(admin, SESSION_NAMESPACE, r)).toEqual([holder]);
    // The lock is real for everyone else: a session of its own is refused.
    const outside = await admin.query<{ granted: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS granted', [
      advisoryKey(SESSION_NAMESPACE, r).toString(),
    ]);
    expect(outside.rows[0]?.granted).toBe(false);
    await first.release();
    await second.release();
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY($1)', [pids]);
  });

  it('the unlock runs on another connection, answers false, and the lock stays with the first session (leaked)', async () => {
    const { lock, pids } = await twoConnections();
    const r = `session-${Date.now()}-b`;
    const lease: Lease = await lock.acquire(r, as('A', 1_000));
    const [holder = -1] = await holders(admin, SESSION_NAMESPACE, r);
    // Another request is using the holding connection when A unlocks: the test holds it.
    const busy = await takeNext();
    expect(busy.pid).toBe(holder);
    const other = pids.find((p) => p !== holder)!;
    await lease.release(); // runs pg_advisory_unlock on the only free connection: the other one
    // PostgreSQL told that session it held nothing (pg_advisory_unlock returned false with this WARNING)...
    expect(notices.get(other)?.some((m) => m.includes("you don't own a lock of type ExclusiveLock"))).toBe(true);
    expect(notices.get(holder) ?? []).toEqual([]);
    // ...and the lock is still held by the first session, with A long gone.
    expect(await holders(admin, SESSION_NAMESPACE, r)).toEqual([holder]);
    busy.client.release();
    // Anyone handed the other connection waits for a lock nobody will give back: waitMs, then refused.
    const other2 = await takeNext(); // the last returned: the holder's connection, held aside
    expect(other2.pid).toBe(holder);
    await expect(lock.acquire(r, as('B', 300))).rejects.toBeInstanceOf(LockTimeoutError);
    // A reset's clean-up ends the holding session, and the leak with it.
    other2.client.release();
    await lock.clear(r);
    for (let i = 0; i < 100 && (await holders(admin, SESSION_NAMESPACE, r)).length > 0; i++) await sleep(20);
    expect(await holders(admin, SESSION_NAMESPACE, r)).toEqual([]);
  });
});

describe('a PostgreSQL that is not there', () => {
  it('each lock answers at once with a named DependencyDownError (503 postgres_unavailable), not a wait', async () => {
    const nowhere = { ...servers.current.postgres, port: 1 };
    const pool = openPostgresPool(nowhere, 2);
    const locks = {
      xact: new PgAdvisoryXactLock(pool),
      try: new PgAdvisoryXactLock(pool, 'try'),
      session: new PgAdvisorySessionLock(pool),
      library: new LibAdvisoryLock(nowhere),
    };
    for (const [name, lock] of Object.entries(locks)) {
      const t0 = Date.now();
      await expect(lock.acquire('down', as('A', 10_000)), name).rejects.toMatchObject({ dependency: 'postgres' });
      expect(Date.now() - t0, name).toBeLessThan(2_000);
    }
    await pool.end();
  });
});

describe('PostgresStock', () => {
  let pool: pg.Pool;
  let stock: PostgresStock;
  beforeAll(() => {
    pool = openPostgresPool(servers.current.postgres, 4);
    stock = new PostgresStock(pool);
  });
  afterAll(() => pool.end());

  it('reads, writes and records each sale with its write; a reset sets the count and forgets the sales', async () => {
    await stock.reset(10);
    expect(await stock.read()).toBe(10);
    await stock.write(9, 'sale-1');
    expect(await stock.decrementIfAvailable('sale-2')).toBe(true);
    expect(await stock.read()).toBe(8);
    expect(await stock.sales()).toEqual({ 'sale-1': 1, 'sale-2': 1 });
    await stock.reset(0);
    expect(await stock.decrementIfAvailable('sale-3')).toBe(false);
    expect(await stock.sales()).toEqual({});
  });

  it('fences: a claim raises the fence only upward, a write needs the standing claim, and a reset lowers nothing', async () => {
    await stock.reset(5);
    const base = BigInt((await pool.query<{ f: string }>('SELECT fence_postgres AS f FROM db_stock')).rows[0]!.f);
    const older = { source: 'postgres' as const, token: base + 10n };
    const newer = { source: 'postgres' as const, token: base + 11n };
    expect(await stock.claim(older)).toBe(true);
    expect(await stock.claim(newer)).toBe(true);
    expect(await stock.claim(older)).toBe(false);
    expect(await stock.writeFenced(older, 4, 'stale')).toBe(false);
    expect(await stock.writeFenced(newer, 4, 'fresh')).toBe(true);
    await stock.reset(5);
    expect(await stock.claim(newer)).toBe(false);
    expect(await stock.sales()).toEqual({});
  });

  it('holds the row for the work (FOR UPDATE): a second transaction waits, and gives up after its waitMs with 55P03', async () => {
    await stock.reset(5);
    let release!: () => void;
    const holding = stock.withRowLocked(
      5_000,
      async (count) => {
        await new Promise<void>((resolve) => (release = resolve));
        return { count: count - 1, result: 'deducted' };
      },
      'held',
    );
    await sleep(200);
    await expect(stock.withRowLocked(300, async (count) => ({ count: count - 1, result: 'deducted' }))).rejects.toMatchObject({ code: '55P03' });
    release();
    expect(await holding).toBe('deducted');
    expect(await stock.read()).toBe(4);
    expect(await stock.sales()).toEqual({ held: 1 });
  });

  it('a server that is not there is a fast, named 503 (postgres unavailable), not a hang', async () => {
    const nowhere = openPostgresPool({ ...servers.current.postgres, port: 1 }, 2);
    const t0 = Date.now();
    await expect(new PostgresStock(nowhere).read()).rejects.toBeInstanceOf(DependencyDownError);
    await expect(new PostgresStock(nowhere).write(1, 'x')).rejects.toMatchObject({ dependency: 'postgres' });
    expect(Date.now() - t0).toBeLessThan(2_000);
    await nowhere.end();
  });

  it('a full pool is busy after the wait, with nothing sent', async () => {
    const one = openPostgresPool(servers.current.postgres, 1);
    const held = await one.connect();
    await expect(new PostgresStock(one, 200).read()).rejects.toBeInstanceOf(PostgresPoolBusyError);
    held.release();
    expect(await new PostgresStock(one, 200).read()).toBeGreaterThanOrEqual(0);
    await one.end();
  });
});
