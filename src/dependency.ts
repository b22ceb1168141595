// A dependency that is down must turn into a fast, named 503, not a hung or opaque 500.

export type DependencyName = 'mysql' | 'redis' | 'redlock' | 'zookeeper';

export class DependencyDownError extends Error {
  constructor(
    readonly dependency: DependencyName,
    cause: unknown,
  ) {
    super(`${dependency} is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

const connectionCodes = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'ER_SERVER_SHUTDOWN', 'CONNECTION_LOSS',
]);
const connectionMessages = [
  "Stream isn't writeable", 'Connection is closed', 'Command timed out', 'Pool is closed',
  'connect ETIMEDOUT', 'Connection lost', 'Reached the max retries per request limit',
];

/** True when an error (or anything it wraps) says the server could not be reached. */
export function isConnectionError(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 4) return false;
  const { code, driverError } = err as Error & { code?: unknown; driverError?: unknown };
  if (typeof code === 'string' && connectionCodes.has(code)) return true;
  if (connectionMessages.some((m) => err.message.includes(m))) return true;
  return isConnectionError(driverError, depth + 1) || isConnectionError(err.cause, depth + 1);
}

/** Runs a call against a dependency, naming the dependency when it turns out to be down. */
export async function callDependency<T>(dependency: DependencyName, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw isConnectionError(err) ? new DependencyDownError(dependency, err) : err;
  }
}
