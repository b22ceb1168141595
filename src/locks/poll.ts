// The course's retry loop: try, sleep retryMs, try again until waitMs is spent, for the locks that
// can only ask "is it free now?" (e.g. the SETNX family, the MySQL tables, zk-ephemeral).
import { LockTimeoutError } from './errors.js';
import type { LockOptions } from './lock.js';
import { reportLockEvent } from './observer.js';
import { remaining, sleep } from '../time.js';

/**
 * The course's retry loop for locks that can only ask "is it free now?": try, sleep retryMs, try
 * again, until waitMs is spent; then LockTimeoutError.
 */
export async function pollUntilAcquired(resource: string, opts: LockOptions & { signal?: AbortSignal }, tryOnce: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + opts.waitMs;
  for (;;) {
    opts.signal?.throwIfAborted();
    if (await tryOnce()) return;
    const left = remaining(deadline);
    if (left <= 0) throw new LockTimeoutError(resource, opts.waitMs);
    reportLockEvent('retry_busy');
    await sleep(Math.min(opts.retryMs, left), opts.signal);
  }
}
