// A pooled MySQL connection, waited for with a bound. mysql2's pool has no acquire timeout: a
// request behind a full pool would wait as long as the slowest holder (a sql-for-update with a long
// workMs), /health included. Worse, a write given up on while still queued would run later, after
// its lock was released. So the wait is for the connection, before any statement is sent.
import type { DataSource, EntityManager } from 'typeorm';

/** No pooled connection came free within the wait: nothing was sent. */
export class PoolBusyError extends Error {
  constructor(waitMs: number) {
    super(`no MySQL connection free within ${waitMs} ms; nothing was sent`);
  }
}

/**
 * Runs `work` on one connection of the pool, waited for at most `waitMs`; past it PoolBusyError,
 * and a connection granted later goes straight back unused. The manager `work` gets is bound to
 * that connection (its transactions run on it too).
 */
export async function onConnection<T>(db: DataSource, waitMs: number, work: (m: EntityManager) => Promise<T>): Promise<T> {
  const runner = db.createQueryRunner();
  const connected = runner.connect();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new PoolBusyError(waitMs)), waitMs);
  });
  try {
    await Promise.race([connected, timedOut]);
  } catch (err) {
    void connected.then(
      () => runner.release(),
      () => runner.release(),
    );
    // mysql2's own bound on waiters (queueLimit): refused at once, nothing sent either.
    if (err instanceof Error && err.message.includes('Queue limit reached')) throw new PoolBusyError(waitMs);
    throw err;
  } finally {
    clearTimeout(timer);
  }
  try {
    return await work(runner.manager);
  } finally {
    await runner.release();
  }
}
