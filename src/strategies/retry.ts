import { remaining, sleep } from '../locks/wait.js';

/** Optimistic retries (a version check, a WATCHed transaction) ran past the request's wait bound. */
export class RetriesExhaustedError extends Error {
  constructor(attempts: number, waitMs: number) {
    super(`optimistic update still conflicting after ${attempts} attempts in ${waitMs} ms`);
  }
}

/**
 * Pauses before optimistic attempt `attempt + 1`, or throws RetriesExhaustedError when the pause
 * would cross `deadline`. Full jitter, doubling up to retryMs: spreads the losers out instead of
 * letting them collide again.
 */
export async function backOffOrGiveUp(attempt: number, deadline: number, retryMs: number, waitMs: number): Promise<void> {
  const backoff = Math.random() * Math.min(retryMs, 2 ** Math.min(attempt, 10));
  if (remaining(deadline) <= backoff) throw new RetriesExhaustedError(attempt, waitMs);
  await sleep(backoff);
}
