// PostgreSQL's advisory locks (src/locks/pg/) over a stand-in pool that records every statement and
// answers as each test scripts it: what each lock sends and in what order, the bound it puts on the
// wait, what it does with the connection after a refusal, a lock timeout, a lost connection or any
// other failure, and what a release does. The locks against a real PostgreSQL (exclusion, leaks,
// terminated holders) are test/locks/postgres.contract.test.ts's.
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresConnectionError } from '../../src/db/postgres-pool.js';
import { DependencyDownError } from '../../src/dependency.js';
import { LockNotHeldError, LockTimeoutError } from '../../src/locks/errors.js';
import type { AcquireOptions } from '../../src/locks/lock.js';
import { advisoryKey } from '../../src/locks/pg/key.js';
import { PgAdvisorySessionLock, SESSION_NAMESPACE, SESSION_SQL } from '../../src/locks/pg/session-lock.js';
import { PgAdvisoryXactLock, XACT_NAMESPACE, XACT_SQL } from '../../src/locks/pg/xact-lock.js';

const BOUND_MS = 1_000;

type Answer = { rows: Record<string, unknown>[] } | Error;
type Responder = (text: string, values: readonly unknown[] | undefined) => Answer | undefined;

/** A pooled connection: records statements (with a lock wait's own bound) and how it went back. */
class StandInClient extends EventEmitter {
  constructor(
    private readonly pool: StandInPool,
    readonly id: number,
  ) {
    super();
  }
  async query(q: string | (pg.QueryConfig & { query_timeout?: number }), values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }> {
    const text = typeof q === 'string' ? q : q.text;
    const vals = typeof q === 'string' ? values : q.values;
    const bound = typeof q === 'string' ? '' : ` [bound ${q.query_timeout}]`;
    this.pool.log.push(`${this.id}: ${text}${vals ? ` ${JSON.stringify(vals)}` : ''}${bound}`);
    const answer = this.pool.respond(text, vals) ?? { rows: [] };
    if (answer instanceof Error) throw answer;
    return answer;
  }
  release(destroy?: boolean): void {
    this.pool.log.push(`${this.id}: ${destroy ? 'destroyed' : 'released'}`);
  }
}

/** The parts of pg.Pool that checkout() uses; `full` leaves no connection to hand out. */
class StandInPool {
  readonly log: string[] = [];
  readonly options = { max: 2, query_timeout: BOUND_MS };
  idleCount = 0;
  totalCount = 0;
  full = false;
  private next = 0;
  constructor(readonly respond: Responder = () => undefined) {}
  connect(): Promise<StandInClient> {
    if (this.full) return new Promise(() => {});
    return Promise.resolve(new StandInClient(this, ++this.next));
  }
  asPool(): pg.Pool {
    this.totalCount = this.full ? this.options.max : 0;
    return this as unknown as pg.Pool;
  }
}

const pgError = (code: string, message = code): Error => Object.assign(new Error(message), { code });
const opts = (waitMs: number): AcquireOptions => ({ owner: 'a', ttlMs: 30_000, retryMs: 10, waitMs });
const XKEY = advisoryKey(XACT_NAMESPACE, 'r').toString();
const SKEY = advisoryKey(SESSION_NAMESPACE, 'r').toString();

/** Answers the token statement with `token`, the try with `granted`, and `lock` (an error, or rows) to the waiting lock. */
function xactResponder(o: { granted?: boolean; token?: string | null; lock?: Error; commit?: Error } = {}): Responder {
  return (text) => {
    if (text === XACT_SQL.tryLock) return { rows: [{ granted: o.granted ?? true }] };
    if (text === XACT_SQL.token) return { rows: o.token === null ? [] : [{ token: o.token ?? '17' }] };
    if (text === XACT_SQL.lock && o.lock) return o.lock;
    if (text === XACT_SQL.commit && o.commit) return o.commit;
    return undefined;
  };
}

describe('pg-advisory-xact over a stand-in pool', () => {
  it('lists what it sends: BEGIN, the wait’s bound, the lock, the token; COMMIT; the try form without the bound', () => {
    const pool = new StandInPool().asPool();
    expect(new PgAdvisoryXactLock(pool).sql()).toEqual({
      acquire: [XACT_SQL.begin, XACT_SQL.setLockTimeout, XACT_SQL.lock, XACT_SQL.token],
      release: [XACT_SQL.commit],
    });
    expect(new PgAdvisoryXactLock(pool, 'try').sql()).toEqual({ acquire: [XACT_SQL.begin, XACT_SQL.tryLock, XACT_SQL.token], release: [XACT_SQL.commit] });
    expect(new PgAdvisoryXactLock(pool).fencing).toBe('postgres');
  });

  it('acquires on one connection with lock_timeout = waitMs and the statement bound on top, and releases with COMMIT, giving the connection back', async () => {
    const stand = new StandInPool(xactResponder({ token: '42' }));
    const lease = await new PgAdvisoryXactLock(stand.asPool()).acquire('r', opts(5_000));
    const [, set, lock] = stand.log;
    expect(stand.log[0]).toBe('1: BEGIN');
    // The wait left: 5 000 ms, or a ms or two less by the time it is sent.
    const waitMs = Number(/\["(\d+)"\]/.exec(set!)?.[1]);
    expect(waitMs).toBeGreaterThan(4_900);
    expect(waitMs).toBeLessThanOrEqual(5_000);
    expect(lock).toBe(`1: ${XACT_SQL.lock} ["${XKEY}"] [bound ${BOUND_MS + waitMs}]`);
    expect(stand.log.slice(3)).toEqual([`1: ${XACT_SQL.token}`]);
    expect(await lease.fencingToken?.()).toBe(42n);
    expect(lease.lost.aborted).toBe(false);
    await lease.release();
    expect(stand.log.slice(4)).toEqual(['1: COMMIT', '1: released']);
  });

  it('with no wait left, tries instead (lock_timeout 0 would wait forever): granted, the token; refused, ROLLBACK and a LockTimeoutError', async () => {
    const granted = new StandInPool(xactResponder({ granted: true }));
    await new PgAdvisoryXactLock(granted.asPool()).acquire('r', opts(0));
    expect(granted.log).toEqual(['1: BEGIN', `1: ${XACT_SQL.tryLock} ["${XKEY}"]`, `1: ${XACT_SQL.token}`]);
    const refused = new StandInPool(xactResponder({ granted: false }));
    await expect(new PgAdvisoryXactLock(refused.asPool()).acquire('r', opts(0))).rejects.toThrow(new LockTimeoutError('r', 0));
    expect(refused.log).toEqual(['1: BEGIN', `1: ${XACT_SQL.tryLock} ["${XKEY}"]`, '1: ROLLBACK', '1: released']);
  });

  it('the try form never waits, whatever waitMs, and a refusal says 0 ms', async () => {
    const refused = new StandInPool(xactResponder({ granted: false }));
    await expect(new PgAdvisoryXactLock(refused.asPool(), 'try').acquire('r', opts(5_000))).rejects.toThrow(new LockTimeoutError('r', 0));
    expect(refused.log).toEqual(['1: BEGIN', `1: ${XACT_SQL.tryLock} ["${XKEY}"]`, '1: ROLLBACK', '1: released']);
    const noRow = new StandInPool((text) => (text === XACT_SQL.tryLock ? { rows: [] } : undefined));
    await expect(new PgAdvisoryXactLock(noRow.asPool(), 'try').acquire('r', opts(5_000))).rejects.toBeInstanceOf(LockTimeoutError);
  });

  it('a lock wait that runs out (55P03) is rolled back on the same connection, which goes back whole: LockTimeoutError naming waitMs', async () => {
    const stand = new StandInPool(xactResponder({ lock: pgError('55P03', 'canceling statement due to lock timeout') }));
    await expect(new PgAdvisoryXactLock(stand.asPool()).acquire('r', opts(300))).rejects.toThrow(new LockTimeoutError('r', 300));
    expect(stand.log.slice(-2)).toEqual(['1: ROLLBACK', '1: released']);
  });

  it('a connection lost under the acquire is destroyed with no ROLLBACK sent, and named as PostgreSQL down', async () => {
    const stand = new StandInPool(xactResponder({ lock: pgError('57P01', 'terminating connection due to administrator command') }));
    const err = await new PgAdvisoryXactLock(stand.asPool()).acquire('r', opts(300)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DependencyDownError);
    expect(err).toMatchObject({ dependency: 'postgres' });
    // A lock's statements write no stock: nothing of them can have taken effect elsewhere.
    expect((err as Error).cause).toBeInstanceOf(PostgresConnectionError);
    expect((err as Error).cause).toMatchObject({ mayHaveApplied: false });
    expect(stand.log.slice(-1)).toEqual(['1: destroyed']);
    expect(stand.log.join('\n')).not.toContain('ROLLBACK');
  });

  it('a connection that reported an error while acquiring is destroyed too, and any other failure is rolled back and passed on as it is', async () => {
    let client: StandInClient | undefined;
    const failing = pgError('42P01', 'relation "stock_fence_seq" does not exist');
    const stand = new StandInPool((text) => {
      if (text === XACT_SQL.token) {
        client?.emit('error', new Error('the socket went away'));
        return failing;
      }
      return undefined;
    });
    const realConnect = stand.connect.bind(stand);
    stand.connect = async () => (client = await realConnect());
    await expect(new PgAdvisoryXactLock(stand.asPool()).acquire('r', opts(300))).rejects.toBe(failing);
    expect(stand.log.slice(-1)).toEqual(['1: destroyed']);
    expect(stand.log.join('\n')).not.toContain('ROLLBACK');

    const plain = new StandInPool((text) => (text === XACT_SQL.token ? failing : undefined));
    await expect(new PgAdvisoryXactLock(plain.asPool()).acquire('r', opts(300))).rejects.toBe(failing);
    expect(plain.log.slice(-2)).toEqual(['1: ROLLBACK', '1: released']);
  });

  it('a grant with no token row is no grant: a TypeError, rolled back', async () => {
    const stand = new StandInPool(xactResponder({ token: null }));
    await expect(new PgAdvisoryXactLock(stand.asPool()).acquire('r', opts(300))).rejects.toThrow(new TypeError('expected a BIGINT, got undefined'));
    expect(stand.log.slice(-2)).toEqual(['1: ROLLBACK', '1: released']);
  });

  it('a wait used up while the connection opened becomes a try; its refusal names the waitMs asked for', async () => {
    const stand = new StandInPool(xactResponder({ granted: false }));
    const realConnect = stand.connect.bind(stand);
    // The connection takes 30 ms to open; the acquire asked to wait 5.
    stand.connect = () => new Promise((resolve) => setTimeout(() => resolve(realConnect()), 30));
    await expect(new PgAdvisoryXactLock(stand.asPool()).acquire('r', opts(5))).rejects.toThrow(new LockTimeoutError('r', 5));
    expect(stand.log).toEqual(['1: BEGIN', `1: ${XACT_SQL.tryLock} ["${XKEY}"]`, '1: ROLLBACK', '1: released']);
  });

  it('a full pool past waitMs is a wait for the lock that ran out: LockTimeoutError, nothing sent', async () => {
    const stand = new StandInPool();
    stand.full = true;
    await expect(new PgAdvisoryXactLock(stand.asPool()).acquire('r', opts(5))).rejects.toThrow(new LockTimeoutError('r', 5));
    expect(stand.log).toEqual([]);
  });

  it('a hold whose connection failed has lost the lock: lost fires, the release is refused and the connection destroyed, no COMMIT sent', async () => {
    let client: StandInClient | undefined;
    const stand = new StandInPool(xactResponder());
    const realConnect = stand.connect.bind(stand);
    stand.connect = async () => (client = await realConnect());
    const lease = await new PgAdvisoryXactLock(stand.asPool()).acquire('r', opts(300));
    client!.emit('error', new Error('terminating connection due to administrator command'));
    expect(lease.lost.aborted).toBe(true);
    await expect(lease.release()).rejects.toBeInstanceOf(LockNotHeldError);
    expect(stand.log.slice(-1)).toEqual(['1: destroyed']);
    expect(stand.log.join('\n')).not.toContain('COMMIT');
  });

  it('a COMMIT that finds the session ended is a lock already lost; one unanswered within its bound, or any other failure, is passed on as it is; the connection is destroyed either way', async () => {
    const ended = new StandInPool(xactResponder({ commit: pgError('57P01', 'terminating connection') }));
    const lease = await new PgAdvisoryXactLock(ended.asPool()).acquire('r', opts(300));
    await expect(lease.release()).rejects.toBeInstanceOf(LockNotHeldError);
    expect(ended.log.slice(-2)).toEqual(['1: COMMIT', '1: destroyed']);

    const timedOut = new Error('Query read timeout');
    const silent = new StandInPool(xactResponder({ commit: timedOut }));
    const held = await new PgAdvisoryXactLock(silent.asPool()).acquire('r', opts(300));
    await expect(held.release()).rejects.toBe(timedOut);
    expect(silent.log.slice(-1)).toEqual(['1: destroyed']);

    const other = pgError('40001', 'could not serialize access');
    const odd = new StandInPool(xactResponder({ commit: other }));
    const third = await new PgAdvisoryXactLock(odd.asPool()).acquire('r', opts(300));
    await expect(third.release()).rejects.toBe(other);
    expect(odd.log.slice(-1)).toEqual(['1: destroyed']);
  });

  it('asks for an explicit owner', async () => {
    await expect(new PgAdvisoryXactLock(new StandInPool().asPool()).acquire('r', { ...opts(1), owner: '' })).rejects.toBeInstanceOf(TypeError);
  });
});

describe('pg-advisory-session over a stand-in pool (the flaw kept)', () => {
  it('lists what it sends', () => {
    expect(new PgAdvisorySessionLock(new StandInPool().asPool()).sql()).toEqual({
      acquire: [SESSION_SQL.setLockTimeout, SESSION_SQL.lock, SESSION_SQL.resetLockTimeout],
      release: [SESSION_SQL.unlock],
    });
  });

  it('locks on one pooled connection with its wait bounded and the bound put back, gives that connection back holding the lock, and unlocks on whichever comes next', async () => {
    const stand = new StandInPool();
    const lease = await new PgAdvisorySessionLock(stand.asPool()).acquire('r', opts(5_000));
    const waitMs = Number(/\["(\d+)"\]/.exec(stand.log[0]!)?.[1]);
    expect(stand.log[0]).toBe(`1: ${SESSION_SQL.setLockTimeout} ["${waitMs}"]`);
    expect(waitMs).toBeGreaterThan(4_900);
    expect(waitMs).toBeLessThanOrEqual(5_000);
    expect(stand.log.slice(1)).toEqual([
      `1: ${SESSION_SQL.lock} ["${SKEY}"] [bound ${BOUND_MS + waitMs}]`,
      `1: ${SESSION_SQL.resetLockTimeout}`,
      '1: released',
    ]);
    // Nothing tells this holder of a loss.
    expect(lease.lost.aborted).toBe(false);
    expect(lease).not.toHaveProperty('fencingToken');
    await lease.release();
    expect(stand.log.slice(4)).toEqual([`2: ${SESSION_SQL.unlock} ["${SKEY}"]`, '2: released']);
  });

  it('with no wait left, tries: refused is LockTimeoutError, and no bound is set or put back', async () => {
    const refused = new StandInPool((text) => (text === SESSION_SQL.tryLock ? { rows: [{ granted: false }] } : undefined));
    await expect(new PgAdvisorySessionLock(refused.asPool()).acquire('r', opts(0))).rejects.toThrow(new LockTimeoutError('r', 0));
    expect(refused.log).toEqual([`1: ${SESSION_SQL.tryLock} ["${SKEY}"]`, '1: released']);
    const noRow = new StandInPool((text) => (text === SESSION_SQL.tryLock ? { rows: [] } : undefined));
    await expect(new PgAdvisorySessionLock(noRow.asPool()).acquire('r', opts(0))).rejects.toThrow(new LockTimeoutError('r', 0));
    const granted = new StandInPool((text) => (text === SESSION_SQL.tryLock ? { rows: [{ granted: true }] } : undefined));
    await new PgAdvisorySessionLock(granted.asPool()).acquire('r', opts(0));
    expect(granted.log).toEqual([`1: ${SESSION_SQL.tryLock} ["${SKEY}"]`, '1: released']);
  });

  it('a wait that runs out (55P03) still puts the bound back (a failure to do so ignored), and is LockTimeoutError', async () => {
    const stand = new StandInPool((text) => {
      if (text === SESSION_SQL.lock) return pgError('55P03');
      if (text === SESSION_SQL.resetLockTimeout) return new Error('no');
      return undefined;
    });
    await expect(new PgAdvisorySessionLock(stand.asPool()).acquire('r', opts(300))).rejects.toThrow(new LockTimeoutError('r', 300));
    expect(stand.log.slice(-2)).toEqual([`1: ${SESSION_SQL.resetLockTimeout}`, '1: released']);
  });

  it('a full pool is LockTimeoutError; a lost connection is PostgreSQL down; anything else passes as it is', async () => {
    const full = new StandInPool();
    full.full = true;
    await expect(new PgAdvisorySessionLock(full.asPool()).acquire('r', opts(5))).rejects.toThrow(new LockTimeoutError('r', 5));
    const lost = new StandInPool((text) => (text === SESSION_SQL.lock ? pgError('57P01', 'terminating connection') : undefined));
    const err = await new PgAdvisorySessionLock(lost.asPool()).acquire('r', opts(300)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DependencyDownError);
    expect((err as Error).cause).toMatchObject({ mayHaveApplied: false });
    expect(lost.log.slice(-1)).toEqual(['1: destroyed']);
    const other = pgError('42883', 'function pg_advisory_lock does not exist');
    const odd = new StandInPool((text) => (text === SESSION_SQL.lock ? other : undefined));
    await expect(new PgAdvisorySessionLock(odd.asPool()).acquire('r', opts(300))).rejects.toBe(other);
  });

  it('clear() ends every other session on the key, then drops what its own session holds', async () => {
    const stand = new StandInPool();
    await new PgAdvisorySessionLock(stand.asPool()).clear('r');
    expect(stand.log).toEqual([`1: ${SESSION_SQL.endHolders} ["${SKEY}"]`, `1: ${SESSION_SQL.unlockAll}`, '1: released']);
  });

  it('asks for an explicit owner', async () => {
    await expect(new PgAdvisorySessionLock(new StandInPool().asPool()).acquire('r', { ...opts(1), owner: '' })).rejects.toBeInstanceOf(TypeError);
  });
});
