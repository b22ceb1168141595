// PgBouncer's transaction pooling under a session advisory lock (pgbouncer/pgbouncer #102, #418):
// in that mode a client's statements run on whichever server connection is free, and since 1.7
// nothing resets a server between clients. A session lock taken through it belongs to the pooled
// server, not to the client: the next client handed that server "takes" it again at once, and a
// client that leaves without unlocking leaves it held by a server nobody owns. Built in order on a
// PgBouncer of two servers handed out last-in first-out (its defaults, faults/pgbouncer.ts): A
// takes the lock and its statement ends; then B asks.
import { randomUUID } from 'node:crypto';
import { strToKey } from 'advisory-lock';
import pg from 'pg';
import { openPostgresPool } from '../../src/db/postgres-pool.js';
import { LockTimeoutError } from '../../src/locks/errors.js';
import type { Lease, Lock } from '../../src/locks/lock.js';
import { createMutexFactory } from '../../src/locks/library/advisory-lock.js';
import { PgAdvisorySessionLock } from '../../src/locks/pg/session-lock.js';
import { PgAdvisoryXactLock } from '../../src/locks/pg/xact-lock.js';
import { startPgBouncer, type Bouncer } from '../pgbouncer.js';
import type { FaultContext } from '../scenario.js';
import { LAB, type Trial, type TrialSpec } from './incident.js';

type Outcome = Omit<Trial, 'pkg' | 'version'>;

/** A PgBouncer in front of the context's PostgreSQL, and a direct connection beside it, for the case. */
async function withBouncer<T>(ctx: FaultContext, use: (bouncer: Bouncer, direct: pg.Client) => Promise<T>): Promise<T> {
  const upstream = ctx.cluster.info.postgres;
  if (!upstream) throw new Error('this cluster has no PostgreSQL');
  const bouncer = await startPgBouncer(upstream);
  const direct = new pg.Client({ ...upstream, connectionTimeoutMillis: 5_000 });
  direct.on('error', () => undefined);
  try {
    await direct.connect();
    return await use(bouncer, direct);
  } finally {
    await direct.end().catch(() => undefined);
    // its server connections close with it, and the session locks they hold go with them
    await bouncer.stop();
  }
}

/** The backends holding the package's key for `name` (two int4s from its SHA-256, its own strToKey), as pg_locks shows it. */
async function packageKeyHolders(direct: pg.Client, name: string): Promise<number[]> {
  const [k1, k2] = strToKey(name);
  const res = await direct.query<{ pid: number }>(
    "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid::int = $1 AND objid::int = $2 AND objsubid = 2 AND granted",
    [k1, k2],
  );
  return res.rows.map((r) => r.pid);
}

/**
 * advisory-lock 2.0.0 behind PgBouncer: A locks; B's tryLock on the same name; B unlocks. Then a
 * third client opens a transaction, which takes the server A's lock lives on (the one used last),
 * and A unlocks: its statement runs on the other server, whose session holds nothing, and the lock
 * stays with the first server after the transaction ends.
 */
export const advisoryLockBehindBouncer: TrialSpec = {
  pkg: 'advisory-lock',
  run: (ctx) =>
    withBouncer(ctx, async (bouncer, direct): Promise<Outcome> => {
      const name = `incident-pgbouncer-${randomUUID()}`;
      const [k1, k2] = strToKey(name);
      const mutex = () => createMutexFactory(bouncer.url)(name);
      const unlockA = await mutex().lock();
      const unlockB = await mutex().tryLock();
      const sessions = new Set(await packageKeyHolders(direct, name)).size;
      if (unlockB) await unlockB();
      const other = new pg.Client({ ...bouncer.login, connectionTimeoutMillis: 5_000 });
      other.on('error', () => undefined);
      await other.connect();
      let left: number[];
      try {
        await other.query('BEGIN');
        await other.query('SELECT 1');
        await unlockA();
        await other.query('COMMIT');
        left = await packageKeyHolders(direct, name);
      } finally {
        await other.end().catch(() => undefined);
      }
      const freeDirectly = (await direct.query<{ got: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS got', [k1, k2])).rows[0]?.got === true;
      if (freeDirectly) await direct.query('SELECT pg_advisory_unlock($1, $2)', [k1, k2]);
      const twoHolders = unlockB !== undefined;
      const leftBehind = left.length > 0 && !freeDirectly;
      return {
        reproduced: twoHolders && leftBehind,
        measured: {
          en: `A held the lock through PgBouncer; B's tryLock on the same name ${twoHolders ? `was granted too (${sessions} server session holding it)` : 'was refused'}. A's unlock while another client's transaction had its server: ${leftBehind ? `the lock stayed held (pid ${left.join(', ')}) with nobody holding it, refused to a direct client` : 'the lock was released'}`,
          zh: `A 经 PgBouncer 持有锁；B 对同一个名字的 tryLock ${twoHolders ? `也拿到了（持有它的服务端会话 ${sessions} 个）` : '被拒绝'}。另一个客户端的事务占着那个服务端连接时 A 解锁：${leftBehind ? `锁仍被持有（pid ${left.join('、')}），却没有任何人持有它，直连的客户端拿不到` : '锁被释放了'}`,
        },
        facts: { twoHolders, holdingSessions: sessions, leftBehind, leftWithPids: left.length },
      };
    }),
};

/** The lab's lock from its own pool on PgBouncer, as one instance would hold it. */
function labLockOn(bouncer: Bouncer, make: (pool: pg.Pool) => Lock): { lock: Lock; pool: pg.Pool } {
  const pool = openPostgresPool({ ...bouncer.login, poolSize: 2 }, 2, 'stocklab-incident');
  return { lock: make(pool), pool };
}

const acquireOrRefused = (lock: Lock, resource: string, owner: string, waitMs: number): Promise<Lease | undefined> =>
  lock
    .acquire(resource, { owner, ttlMs: 30_000, waitMs, retryMs: 50 })
    .catch((err: unknown) => (err instanceof LockTimeoutError ? undefined : Promise.reject(err)));

/** The lab's pg-advisory-session or pg-advisory-xact lock on two "instances" (two pools) behind the same PgBouncer: A holds, B asks. */
function labBehindBouncer(strategy: 'pg-advisory-session' | 'pg-advisory-xact'): TrialSpec {
  const make = (pool: pg.Pool): Lock => (strategy === 'pg-advisory-session' ? new PgAdvisorySessionLock(pool) : new PgAdvisoryXactLock(pool));
  return {
    pkg: `${LAB} ${strategy}`,
    run: (ctx) =>
      withBouncer(ctx, async (bouncer): Promise<Outcome> => {
        const a = labLockOn(bouncer, make);
        const b = labLockOn(bouncer, make);
        const resource = `incident-pgbouncer-${randomUUID()}`;
        try {
          const held = await acquireOrRefused(a.lock, resource, 'a', 5_000);
          if (!held) throw new Error(`${strategy}: A could not take a free lock through PgBouncer`);
          const second = await acquireOrRefused(b.lock, resource, 'b', 300);
          await second?.release().catch(() => undefined);
          await held.release();
          // once A has released, B's turn: a lock that refused B while A held must grant it now
          const after = await acquireOrRefused(b.lock, resource, 'b', 5_000);
          await after?.release().catch(() => undefined);
          const twoHolders = second !== undefined;
          return {
            reproduced: twoHolders,
            measured: {
              en: `A held it through PgBouncer; B, from another pool, ${twoHolders ? 'was granted it too' : 'was refused within 300 ms'}; after A's release B ${after ? 'got it' : 'still could not get it'}`,
              zh: `A 经 PgBouncer 持锁；B 从另一个连接池来加锁，${twoHolders ? '也拿到了' : '300 ms 内被拒绝'}；A 释放之后 B ${after ? '拿到了' : '仍然拿不到'}`,
            },
            facts: { twoHolders, grantedAfterRelease: after !== undefined },
          };
        } finally {
          await Promise.all([a.pool.end(), b.pool.end()]).catch(() => undefined);
        }
      }),
  };
}

export const labSessionBehindBouncer = labBehindBouncer('pg-advisory-session');
export const labXactBehindBouncer = labBehindBouncer('pg-advisory-xact');
