// What the lab knows about each lock strategy: how a dead or frozen holder's claim ends, and
// whether it issues fencing tokens (the service's contract: fenced=1 elsewhere answers 400).
import type { StoreKind } from '../src/stock/store.js';

/** The lab's ZooKeeper session (ZK_SESSION_TIMEOUT_MS), short so the session scenarios stay short (min 1000 in the service). */
export const ZK_SESSION_MS = 2_000;

/** The lab instances' Redis command timeout (REDIS_COMMAND_TIMEOUT_MS, min 100 in the service): how long a reply may be late before it counts as lost. */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;

/** Locks on the one main Redis server (not RedLock): the lost-reply clean-up's subjects. */
export const SINGLE_REDIS_LOCKS: readonly string[] = ['redis-setnx', 'redis-setnx-ex', 'redis-owned', 'redis-reentrant', 'redis-watchdog', 'redis-pubsub'];

/** How a holder's claim ends when the holder stops answering. */
export type Claim =
  /** never: no expiry (redis-setnx) */
  | 'forever'
  /** after ttlMs, a lease the store or server expires */
  | 'ttl'
  /** with the holder's ZooKeeper session */
  | 'session'
  /** with the holder's database session (PostgreSQL's advisory locks): at once when its process dies, never while it is only frozen */
  | 'connection';

export const CLAIM: Readonly<Record<string, Claim>> = {
  'redis-setnx': 'forever',
  // a crash after both of its commands; the crash between them is course-flaws' case
  'redis-setnx-expire': 'ttl',
  'redis-setnx-ex': 'ttl',
  'redis-setnx-getset': 'ttl',
  'redis-owned-get-del': 'ttl',
  'redis-owned': 'ttl',
  'redis-reentrant': 'ttl',
  'redis-watchdog': 'ttl',
  'redis-pubsub': 'ttl',
  redlock: 'ttl',
  // the same lock behind a process line (src/strategies/lined.ts): a claim ends as the lock's does
  'redlock+line': 'ttl',
  'zk-ephemeral': 'session',
  'zk-sequential': 'session',
  'zk-herd': 'session',
  'zk-watch': 'session',
  'zk-watch+line': 'session',
  'zk-reentrant': 'session',
  'zk-reentrant+line': 'session',
  'mysql-lock-table-basic': 'forever',
  'mysql-lock-table': 'ttl',
  'etcd-lock': 'ttl',
  'etcd-lock-no-recheck': 'ttl',
  'pg-advisory-xact': 'connection',
  'pg-advisory-session': 'connection',
  'pg-try-advisory': 'connection',
};

/** etcd's leases: whole seconds, ttlMs rounded up, at least 1 s (src/locks/etcd/lease.ts). */
const WHOLE_SECOND_LEASES: ReadonlySet<string> = new Set(['etcd-lock', 'etcd-lock-no-recheck']);

/** How long a lease asked for with `ttlMs` lasts on the server: etcd's are whole seconds. */
export function leaseMsOf(strategy: string, ttlMs: number): number {
  return WHOLE_SECOND_LEASES.has(strategy) ? Math.max(1, Math.ceil(ttlMs / 1000)) * 1000 : ttlMs;
}

/** PostgreSQL's advisory locks guard the stock they live beside: the Postgres row (store=postgres). */
const POSTGRES_LOCKS: ReadonlySet<string> = new Set(['pg-advisory-xact', 'pg-advisory-session', 'pg-try-advisory']);

/** The store a lock's cases deduct from: MySQL, or PostgreSQL for its own advisory locks. */
export function homeStoreOf(strategy: string): StoreKind {
  return POSTGRES_LOCKS.has(strategy) ? 'postgres' : 'mysql';
}

/** Every lock strategy of the lab, in the catalog's order. */
export const LOCK_STRATEGIES: readonly string[] = Object.keys(CLAIM);

export const ZK_STRATEGIES: readonly string[] = LOCK_STRATEGIES.filter((s) => CLAIM[s] === 'session');

/**
 * Locks that issue no fencing token: RedLock (no single counter), the course's flawed steps that
 * draw none, and PostgreSQL's session lock (the course-style step).
 */
const UNFENCED: ReadonlySet<string> = new Set(['redlock', 'redlock+line', 'redis-setnx-expire', 'redis-setnx-getset', 'mysql-lock-table-basic', 'pg-advisory-session']);

/** Locks with a fencing token: the other Redis single-server locks (an INCR), ZooKeeper (from the node's czxid), the lock table. */
export const FENCEABLE: ReadonlySet<string> = new Set(LOCK_STRATEGIES.filter((s) => !UNFENCED.has(s)));

export function claimOf(strategy: string): Claim {
  const c = CLAIM[strategy];
  if (!c) throw new Error(`no claim kind recorded for ${strategy}`);
  return c;
}
