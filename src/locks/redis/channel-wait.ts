// Redisson's way of waiting, shared by redis-pubsub and Redisson's primitives beyond the mutex
// (fair lock, read-write lock, semaphore, latch): try; when refused, sleep until a message on the primitive's channel wakes
// this waiter, or until the state may have changed on its own (a lease ran out); try again.
import { LockTimeoutError } from '../errors.js';
import { redisCall } from '../../redis/call.js';
import { remaining } from '../../time.js';
import type { ReleaseNotifier, ReleaseWait, Wakes } from './release-notifier.js';

/**
 * The longest sleep between attempts of a waiter no message has woken: pub/sub drops messages
 * while its connection reconnects, so a lost one costs at most this.
 */
export const RECHECK_MS = 1_000;

export type Attempt<T> = { done: true; value: T } | { done: false; hintMs: number };

export interface ChannelWaitOptions {
  /** Named in the LockTimeoutError. */
  resource: string;
  waitMs: number;
  signal?: AbortSignal;
  channel: string;
  wakes: Wakes;
  /**
   * The longest sleep between attempts: RECHECK_MS, or less for waiters that must re-ask to keep
   * their place; Infinity for none (redis-pubsub: its holder's lease is the fallback).
   */
  recheckMs: number;
}

/**
 * Runs `attempt` until it is done or `waitMs` has passed (then LockTimeoutError, after one last
 * attempt at the deadline). A refused attempt's `hintMs` (−1: none) says when the state may change
 * without a message. The waiter is registered before each attempt, so a message sent between the
 * attempt and the sleep is not missed.
 */
export async function waitOnChannel<T>(notifier: ReleaseNotifier, opts: ChannelWaitOptions, attempt: () => Promise<Attempt<T>>): Promise<T> {
  const deadline = Date.now() + opts.waitMs;
  await redisCall(() => notifier.subscribe(opts.channel));
  for (;;) {
    opts.signal?.throwIfAborted();
    const woken = notifier.nextRelease(opts.channel, opts.wakes);
    let result: Attempt<T>;
    try {
      result = await attempt();
    } catch (err) {
      woken.cancel();
      throw err;
    }
    if (result.done) {
      woken.cancel();
      return result.value;
    }
    const left = remaining(deadline);
    if (left <= 0) {
      woken.cancel();
      throw new LockTimeoutError(opts.resource, opts.waitMs);
    }
    const hinted = result.hintMs >= 0 ? result.hintMs + 1 : Infinity;
    await sleepUnlessWoken(woken, Math.min(hinted, opts.recheckMs, left), opts.signal);
  }
}

/** The wait, cut short by the signal's abort (rejecting with its reason). */
async function sleepUnlessWoken(woken: ReleaseWait, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return woken.within(ms);
  if (signal.aborted) {
    woken.cancel();
    throw signal.reason;
  }
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([woken.within(ms), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
    woken.cancel();
  }
}
