// PostgreSQL connections, as the stock store and the advisory locks use them: a `pg` pool whose
// connect is bounded, a checkout whose wait is bounded per call (pg's pool has one bound for both,
// and none per call), each statement bounded (PG_STATEMENT_TIMEOUT_MS: a partition sends no RST,
// and TCP would wait minutes), and pg's ways of saying "the connection is gone" turned into the
// errors dependency.ts judges (a fast 503, or outcome_unknown for a write whose answer was lost).
import pg from 'pg';
import type { PostgresConfig } from '../config.js';
import { PG_CONNECT_TIMEOUT_MS_DEFAULT, PG_STATEMENT_TIMEOUT_MS_DEFAULT } from '../env.js';
import { PoolBusyError } from './connections.js';
import { HandshakeGate } from './handshake-gate.js';

/** New connections a pool opens at once (handshake-gate.ts); the rest queue, each timed from its start. */
export const PG_HANDSHAKES_AT_ONCE = 2;

/** pg's error for a statement given up on past its query_timeout. */
const STATEMENT_TIMED_OUT = 'Query read timeout';
/**
 * pg's error for a new connection that did not open within its connectionTimeoutMillis (a plain
 * Error, no code): the server accepted it and never answered the handshake, or never accepted it.
 */
const CONNECT_TIMED_OUT = 'timeout expired';

/** True when `err` is a statement given up on past its bound (its connection is closed: see BoundedClient). */
export function isPgStatementTimeout(err: unknown): boolean {
  return err instanceof Error && err.message === STATEMENT_TIMED_OUT;
}

/**
 * A connection with its own connect timeout (PG_CONNECT_TIMEOUT_MS: a server that does not answer
 * within it is down for us; the pool's wait for a free one stays unbounded here and is bounded per
 * checkout), opened through its pool's handshake gate, and its statements bounded by the pool's
 * query_timeout.
 *
 * pg's query_timeout rejects a statement past its bound but leaves it the connection's active
 * one: the connection still waits for that answer (forever, on a dead link) and queues every later
 * statement behind it, a ROLLBACK or the next user's. So a connection that gave up on a statement
 * is ended at once: its socket destroyed (pg's end() does so while a statement is active), every
 * later statement on it refused at once ("not queryable"), and the pool drops it when it comes back
 * (it drops an ended client even released without an error): never handed out again.
 */
/** What a pool hands each new connection besides pg's own options. */
interface BoundedOptions {
  handshakes?: HandshakeGate;
  connectTimeoutMs?: number;
}

class BoundedClient extends pg.Client {
  constructor(config?: string | (pg.ClientConfig & BoundedOptions)) {
    const given = typeof config === 'string' ? { connectionString: config } : config;
    // The pool hides the password from its options' enumeration (stack traces): a spread drops it.
    super({
      ...given,
      ...(given?.password !== undefined && { password: given.password }),
      connectionTimeoutMillis: given?.connectTimeoutMs ?? PG_CONNECT_TIMEOUT_MS_DEFAULT,
    });
    const gate = given?.handshakes;
    if (gate) {
      // pg-pool opens a connection with a callback; a caller of its own may await the promise.
      const connect = this.connect.bind(this) as () => Promise<unknown>;
      const gated = (callback?: (err?: Error) => void): Promise<this> | undefined => {
        const opened = gate.through(async () => void (await connect()));
        if (!callback) return opened.then(() => this);
        opened.then(
          () => callback(),
          (err: Error) => callback(err),
        );
        return undefined;
      };
      this.connect = gated as pg.Client['connect'];
    }
    const query = this.query.bind(this) as (...args: unknown[]) => unknown;
    const bounded = (...args: unknown[]): unknown => {
      const sent = query(...args);
      // Seen before the caller's own handler (attached first): by then the connection is ending.
      if (sent instanceof Promise) sent.catch((err: unknown) => void (isPgStatementTimeout(err) && this.end().catch(() => undefined)));
      return sent;
    };
    this.query = bounded as pg.Client['query'];
  }
}

/** A pool on `cfg`, `size` connections at most (cfg.poolSize by default). */
export function openPostgresPool(cfg: PostgresConfig, size = cfg.poolSize, applicationName = 'stocklab'): pg.Pool {
  const options: pg.PoolConfig & BoundedOptions = {
    host: cfg.host,
    port: cfg.port,
    user: cfg.user,
    password: cfg.password,
    database: cfg.database,
    max: size,
    application_name: applicationName,
    keepAlive: true,
    // Idle connections stay open (pg-pool closes them after 10 s by default): a pool emptied between
    // bursts reopens them two handshakes at a time, and the bench's windows, a minute apart, read
    // that reopening instead of the lock (pg-for-update: 100-224/s in a 0.3 s + 0.5 s window after
    // 12 s idle, 394-466/s right after another). The pool's size is the bound, as MySQL's is.
    idleTimeoutMillis: 0,
    query_timeout: cfg.statementTimeoutMs ?? PG_STATEMENT_TIMEOUT_MS_DEFAULT,
    Client: BoundedClient,
    // pg-pool hands its options to each new connection: BoundedClient reads these two there.
    handshakes: new HandshakeGate(PG_HANDSHAKES_AT_ONCE, isPgConnectionLost),
    connectTimeoutMs: cfg.connectTimeoutMs ?? PG_CONNECT_TIMEOUT_MS_DEFAULT,
  };
  const pool = new pg.Pool(options);
  // An idle connection that dies (a restart, a terminated backend) is dropped by the pool; without
  // a listener its error would end the process.
  pool.on('error', () => undefined);
  return pool;
}

/** No pooled PostgreSQL connection came free within the wait: nothing was sent (503 busy). */
export class PostgresPoolBusyError extends PoolBusyError {
  constructor(waitMs: number) {
    super(waitMs);
    this.message = `no PostgreSQL connection free within ${waitMs} ms; nothing was sent`;
  }
}

/**
 * The connection failed under a statement. `code` makes dependency.ts judge it a connection
 * failure; `mayHaveApplied` says whether what was sent can have taken effect (a COMMIT, an
 * autocommitted change), so a write's caller answers outcome_unknown rather than "no".
 */
export class PostgresConnectionError extends Error {
  readonly code = 'ECONNRESET';
  constructor(
    cause: unknown,
    readonly mayHaveApplied: boolean,
  ) {
    super(
      isPgStatementTimeout(cause)
        ? 'PostgreSQL gave no answer within the statement bound (PG_STATEMENT_TIMEOUT_MS); its connection was closed'
        : `PostgreSQL connection failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/** The statement bound of `pool`'s connections, ms (PG_STATEMENT_TIMEOUT_MS). */
export function statementBoundOf(pool: pg.Pool): number {
  return pool.options.query_timeout ?? PG_STATEMENT_TIMEOUT_MS_DEFAULT;
}

/**
 * A statement that waits up to `waitMs` for a lock on the server, under lock_timeout = waitMs
 * (FOR UPDATE, pg_advisory_xact_lock, pg_advisory_lock): its bound is `boundMs` (the pool's) on top
 * of that wait. The server answers 55P03 once the wait runs out, so a legit wait, whatever waitMs
 * (up to WAIT_MS_MAX, params.ts, 60 s: beyond the bound alone), still has the whole statement bound
 * for its answer to arrive: only a link that stopped answering reaches it.
 */
export function lockWaitStatement(boundMs: number, text: string, values: readonly unknown[], waitMs: number): pg.QueryConfig {
  // pg reads a query's own query_timeout before the connection's; its types do not list it.
  const statement: pg.QueryConfig & { query_timeout: number } = { text, values: [...values], query_timeout: boundMs + Math.max(0, waitMs) };
  return statement;
}

/** SQLSTATEs that end the session: the server shut down or was told to end this backend, or the link broke. */
const SESSION_ENDED = /^(57P01|57P02|57P03|08\w{3})$/;
// A statement past its bound counts as lost too: its connection is closed (BoundedClient).
const LOST_MESSAGES = ['Connection terminated', 'Client was closed', 'Client has encountered a connection error', 'not queryable', STATEMENT_TIMED_OUT];
/** Said only while a new connection opens: nothing of a request has been sent on it. */
const CONNECT_MESSAGES = [CONNECT_TIMED_OUT];
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);

/** True when `err` says the connection is gone (or never came up), whatever pg wrapped it in. */
export function isPgConnectionLost(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const { code } = err as Error & { code?: unknown };
  if (typeof code === 'string' && (SESSION_ENDED.test(code) || NOT_SENT_CODES.has(code) || code === 'ECONNRESET' || code === 'EPIPE' || code === 'ETIMEDOUT'))
    return true;
  return LOST_MESSAGES.some((m) => err.message.includes(m)) || CONNECT_MESSAGES.includes(err.message);
}

/**
 * `err` as dependency.ts should judge it: a lost connection becomes PostgresConnectionError
 * (refused connects keep their own code: they prove nothing was sent); anything else as it is.
 */
export function pgFailure(err: unknown, mayHaveApplied: boolean): unknown {
  if (err instanceof PostgresConnectionError || err instanceof PoolBusyError) return err;
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && NOT_SENT_CODES.has(code)) return err;
  return isPgConnectionLost(err) ? new PostgresConnectionError(err, mayHaveApplied) : err;
}

/** A checked-out connection; `done(broken)` gives it back, or destroys it when broken. */
export interface Checkout {
  client: pg.PoolClient;
  /** Aborted when the connection reports an error while checked out (it died, or was terminated). */
  readonly broken: AbortSignal;
  done(destroy?: boolean): void;
}

/**
 * A connection from `pool`, waited for at most `waitMs` when the pool is full (PostgresPoolBusyError
 * past it, nothing sent; one that comes free later goes straight back). A pool with room opens a
 * new one for this call, bounded by its connect timeout (after its turn at the handshake gate, and a
 * handshake ahead that finds the server unreachable fails it too): a wait of 0 still gets one. While
 * checked out its errors are caught (pg's pool listens only to idle ones) and abort `broken`.
 */
export async function checkout(pool: pg.Pool, waitMs: number): Promise<Checkout> {
  const opensOne = pool.idleCount === 0 && pool.totalCount < (pool.options.max ?? 10);
  const pending = pool.connect();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    if (!opensOne) timer = setTimeout(() => reject(new PostgresPoolBusyError(waitMs)), waitMs);
  });
  let client: pg.PoolClient;
  try {
    client = await Promise.race([pending, timedOut]);
  } catch (err) {
    if (err instanceof PostgresPoolBusyError)
      pending.then(
        (late) => late.release(),
        () => undefined,
      );
    else pending.catch(() => undefined);
    throw pgFailure(err, false);
  } finally {
    clearTimeout(timer);
  }
  const broken = new AbortController();
  const onError = (err: Error) => broken.abort(err);
  client.on('error', onError);
  let returned = false;
  return {
    client,
    broken: broken.signal,
    done(destroy = false) {
      if (returned) return;
      returned = true;
      client.off('error', onError);
      client.release(destroy || broken.signal.aborted ? true : undefined);
    },
  };
}

/** Statements on one checked-out connection; a connection that failed under them is destroyed, never reused. */
export async function onPgConnection<T>(pool: pg.Pool, waitMs: number, work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const conn = await checkout(pool, waitMs);
  try {
    const value = await work(conn.client);
    conn.done();
    return value;
  } catch (err) {
    conn.done(isPgConnectionLost(err));
    throw err;
  }
}

/** True when PostgreSQL gave up waiting for a lock (lock_timeout): SQLSTATE 55P03 lock_not_available. */
export function isPgLockTimeout(err: unknown): boolean {
  return (err as { code?: unknown } | undefined)?.code === '55P03';
}

/** The first row's column as a bigint (pg sends BIGINT as text). */
export function bigintOf(value: unknown): bigint {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint') return BigInt(value);
  throw new TypeError(`expected a BIGINT, got ${typeof value}`);
}
