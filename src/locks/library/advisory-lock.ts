// The advisory-lock package (PostgreSQL session advisory locks) as its README uses it: one mutex
// per name, lock() resolving to its unlock. A baseline beside pg-advisory-xact, which is written here.
import * as advisoryLockPackage from 'advisory-lock';
import type { PostgresConfig } from '../../config.js';
import { PG_CONNECT_TIMEOUT_MS_DEFAULT } from '../../env.js';
import { callDependency } from '../../dependency.js';
import { LockTimeoutError } from '../errors.js';
import { leaseOf, neverLost, ownerOf, type AcquireOptions, type Lease, type Lock } from '../lock.js';

/**
 * The package is CommonJS with its factory as `exports.default`. Node hands an ES import the whole
 * `exports` as the default (the factory one level down); vitest's loader unwraps it: take either.
 */
type MutexFactory = (
  connectionString: string,
) => (name: string) => { lock(): Promise<() => Promise<void>>; tryLock(): Promise<(() => Promise<void>) | undefined> };
const packageDefault: unknown = advisoryLockPackage.default;
export const createMutexFactory = (typeof packageDefault === 'function' ? packageDefault : (packageDefault as { default: unknown }).default) as MutexFactory;

/** Our names in its key space (it hashes the name itself: SHA-256, two int4 keys). */
export const libraryLockName = (resource: string): string => `lib:${resource}`;

/**
 * Each lock() opens a connection of its own (the package's design: the session is the lock) and
 * waits in pg_advisory_lock; its unlock runs pg_advisory_unlock on that same connection and closes
 * it, so it has none of pg-advisory-session's pool flaw. The package has no wait bound: it is the
 * server's, lock_timeout = waitMs, passed in the connection's startup options (55P03 past it:
 * LockTimeoutError); waitMs 0 is its tryLock(). Its connect has no bound either, so the whole
 * acquire is given up after waitMs plus a connect's bound, and a grant that arrives later is given
 * back. It cannot learn of a loss: `lost` never fires. Its connections listen for no error, so a
 * server that ends one while it is held ends this process too (the package's, kept as it is).
 */
export class LibAdvisoryLock implements Lock {
  constructor(private readonly cfg: PostgresConfig) {}

  /** What the package sends for `resource`, as sent: it writes its two keys into the text. */
  sql(resource: string): { acquire: string[]; release: string[] } {
    const [k1, k2] = advisoryLockPackage.strToKey(libraryLockName(resource));
    return { acquire: [`SELECT pg_advisory_lock(${k1}, ${k2})`], release: [`SELECT pg_advisory_unlock(${k1}, ${k2})`] };
  }

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    ownerOf(opts); // the package's session is the owner; the owner is checked so every lock asks alike
    const mutex = createMutexFactory(this.connectionString(opts.waitMs))(libraryLockName(resource));
    const pending = opts.waitMs === 0 ? mutex.tryLock() : mutex.lock();
    let timer: NodeJS.Timeout | undefined;
    const givenUp = new Promise<'given up'>((resolve) => {
      timer = setTimeout(() => resolve('given up'), opts.waitMs + (this.cfg.connectTimeoutMs ?? PG_CONNECT_TIMEOUT_MS_DEFAULT));
    });
    let unlock: (() => Promise<void>) | undefined | 'given up';
    try {
      unlock = await callDependency('postgres', () => Promise.race([pending, givenUp]));
    } catch (err) {
      throw (err as { code?: unknown }).code === '55P03' ? new LockTimeoutError(resource, opts.waitMs) : err;
    } finally {
      clearTimeout(timer);
    }
    if (unlock === 'given up') {
      pending
        .then(
          (late) => late?.(),
          () => undefined,
        )
        .catch(() => undefined);
      throw new LockTimeoutError(resource, opts.waitMs);
    }
    if (!unlock) throw new LockTimeoutError(resource, opts.waitMs);
    const release = unlock;
    return leaseOf(resource, neverLost, () => callDependency('postgres', release));
  }

  /** The package takes a connection string; lock_timeout rides in its startup options. */
  private connectionString(waitMs: number): string {
    const { host, port, user, password, database } = this.cfg;
    const url = new URL(`postgres://${host}:${port}/${encodeURIComponent(database)}`);
    url.username = encodeURIComponent(user);
    url.password = encodeURIComponent(password);
    url.searchParams.set('options', `-c lock_timeout=${waitMs}`);
    url.searchParams.set('application_name', 'stocklab-lib-advisory-lock');
    return url.toString();
  }
}
