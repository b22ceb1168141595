// A dependency that is down must turn into a fast, named 503, not a hung or opaque 500.

export type DependencyName = 'mysql' | 'redis' | 'redlock' | 'zookeeper' | 'etcd' | 'postgres';

export class DependencyDownError extends Error {
  constructor(
    readonly dependency: DependencyName,
    cause: unknown,
  ) {
    super(`${dependency} is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

const connectionCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_SERVER_SHUTDOWN',
  'CONNECTION_LOSS',
]);
const connectionMessages = [
  "Stream isn't writeable",
  'Connection is closed',
  'Command timed out',
  'Pool is closed',
  'connect ETIMEDOUT',
  'Connection lost',
  'Reached the max retries per request limit',
  "Can't add new command when connection is in closed state",
  "Can't write in closed state",
];

/**
 * Failures that prove the command never left this process or never reached a server: no
 * connection could be made, or the client refused to send. Any other connection failure may have
 * come after the server applied it (a timeout, a connection lost while waiting for the answer).
 */
const notSentCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);
const notSentMessages = [
  "Stream isn't writeable",
  'Connection is closed',
  'Pool is closed',
  'connect ETIMEDOUT',
  "Can't add new command when connection is in closed state",
  "Can't write in closed state",
];

/**
 * A Redis server that refused to write, so nothing was applied: a minority master under
 * min-replicas-to-write (NOREPLICAS), a master demoted to a replica (READONLY), or a replica cut
 * from its master (MASTERDOWN). Seen when a partition leaves a client talking to the wrong side.
 */
const REFUSED_WRITE = /^(NOREPLICAS|READONLY|MASTERDOWN)\b/;

export function isRefusedWrite(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 4) return false;
  return REFUSED_WRITE.test(err.message) || isRefusedWrite(err.cause, depth + 1);
}

/** A write was sent, and no answer came: it may have been applied. The client must not be told "no". */
export class OutcomeUnknownError extends Error {
  constructor(
    readonly dependency: DependencyName,
    cause: unknown,
  ) {
    super(`${dependency} did not confirm the write, which may have been applied: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** True when an error (or anything it wraps) says the server could not be reached. */
export function isConnectionError(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 4) return false;
  const { code, driverError, fatal } = err as Error & { code?: unknown; driverError?: unknown; fatal?: unknown };
  if (typeof code === 'string' && connectionCodes.has(code)) return true;
  // mysql2 marks every error that ends the connection fatal, some of them without a code.
  if (fatal === true) return true;
  if (connectionMessages.some((m) => err.message.includes(m))) return true;
  return isConnectionError(driverError, depth + 1) || isConnectionError(err.cause, depth + 1);
}

/**
 * True when nothing the failed call sent can take effect: it never left, never reached a server, or
 * (an error with `mayHaveApplied`, as a MySQL statement given up on past its bound carries) it was a
 * read or a statement of a transaction whose COMMIT was never sent.
 */
function neverSent(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 4) return false;
  const { code, driverError, mayHaveApplied } = err as Error & { code?: unknown; driverError?: unknown; mayHaveApplied?: unknown };
  if (typeof mayHaveApplied === 'boolean') return !mayHaveApplied;
  if (typeof code === 'string' && notSentCodes.has(code)) return true;
  if (notSentMessages.some((m) => err.message.includes(m))) return true;
  return neverSent(driverError, depth + 1) || neverSent(err.cause, depth + 1);
}

/**
 * Runs a call that writes the stock: when the server may have applied it but its answer is lost,
 * OutcomeUnknownError (503 outcome_unknown) instead of "unavailable", which would tell the client
 * "no" for a sale that may have happened.
 */
export async function callDependencyWrite<T>(dependency: DependencyName, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (isRefusedWrite(err)) throw new DependencyDownError(dependency, err);
    if (!isConnectionError(err)) throw err;
    throw neverSent(err) ? new DependencyDownError(dependency, err) : new OutcomeUnknownError(dependency, err);
  }
}

/** Runs a call against a dependency, naming the dependency when it turns out to be down. */
export async function callDependency<T>(dependency: DependencyName, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    // Already judged by an inner call (a write inside a wider call): keep its verdict.
    if (err instanceof OutcomeUnknownError || err instanceof DependencyDownError) throw err;
    throw isConnectionError(err) || isRefusedWrite(err) ? new DependencyDownError(dependency, err) : err;
  }
}
