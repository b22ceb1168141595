import type { LockOptions } from '../locks/lock.js';
import { reportLockEvent } from '../locks/observer.js';
import { remaining, sleep } from '../time.js';

/** Optimistic retries (a version check, a WATCHed transaction) ran past the request's wait bound. */
export class RetriesExhaustedError extends Error {
  constructor(attempts: number, waitMs: number) {
    super(`optimistic update still conflicting after ${attempts} attempts in ${waitMs} ms`);
  }
}

/**
 * Runs one optimistic attempt after another until one does not conflict, or throws
 * RetriesExhaustedError when the next pause would cross `deadline`. The pauses use full jitter,
 * doubling up to retryMs: they spread the losers out instead of letting them collide again.
 */
export async function retryOnConflict<T>(deadline: number, opts: Pick<LockOptions, 'retryMs' | 'waitMs'>, attempt: () => Promise<T | 'conflict'>): Promise<T> {
  for (let n = 1; ; n++) {
    const result = await attempt();
    if (result !== 'conflict') return result;
    const backoff = Math.random() * Math.min(opts.retryMs, 2 ** Math.min(n, 10));
    if (remaining(deadline) <= backoff) throw new RetriesExhaustedError(n, opts.waitMs);
    reportLockEvent('retry_conflict');
    await sleep(backoff);
  }
}
