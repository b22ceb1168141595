// Redisson's way of waiting, shared by redis-pubsub and Redisson's primitives beyond the mutex
// (fair lock, read-write lock, semaphore, latch): try; when refused, sleep until a message on the primitive's channel wakes
// this waiter, or until the state may have changed on its own (a lease ran out); try again.
import { LockTimeoutError } from '../../errors.js';
import { redisCall } from '../../../redis-client/call.js';
import { remaining } from '../../../time.js';
import { sleepOffered, type HandoffOffer } from '../../handoff.js';
import type { ReleaseNotifier, ReleaseWait, Wakes } from './release-notifier.js';

/**
 * The longest sleep between attempts of a waiter no message has woken: pub/sub drops messages
 * while its connection reconnects, so a lost one costs at most this.
 */
export const RECHECK_MS = 1_000;

export type Attempt<T> = { done: true; value: T } | { done: false; hintMs: number };

export interface ChannelWaitOptions<T = never> {
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
  /** Offers the waiter, while it sleeps, to a holder of this process that may pass it the lock (see handoff.ts). */
  handoff?: {
    offer(): HandoffOffer<T>;
    /** Gives back a grant passed on to a waiter that gave up meanwhile. */
    giveBack(grant: T): Promise<unknown>;
  };
}

/**
 * Runs `attempt` until it is done or `waitMs` has passed (then LockTimeoutError, after one last
 * attempt at the deadline). A refused attempt's `hintMs` (−1: none) says when the state may change
 * without a message. `sleepFirstMs`: the caller knows the first attempt would fail (another request of
 * this process holds the lock), so the waiter sleeps first, at most that long. The waiter is registered before each attempt, so a message sent between the
 * attempt and the sleep is not missed.
 */
export async function waitOnChannel<T>(
  notifier: ReleaseNotifier,
  opts: ChannelWaitOptions<T>,
  attempt: () => Promise<Attempt<T>>,
  sleepFirstMs?: number,
): Promise<T> {
  const deadline = Date.now() + opts.waitMs;
  await redisCall(() => notifier.subscribe(opts.channel));
  let given: Attempt<T> | undefined = sleepFirstMs === undefined ? undefined : { done: false, hintMs: sleepFirstMs };
  for (;;) {
    opts.signal?.throwIfAborted();
    const woken = notifier.nextRelease(opts.channel, opts.wakes);
    let result: Attempt<T>;
    try {
      result = given ?? (await attempt());
      given = undefined;
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
    const ms = Math.min(hinted, opts.recheckMs, left);
    const { handoff } = opts;
    if (!handoff) {
      await sleepUnlessWoken(woken, ms, opts.signal);
      continue;
    }
    const handed = await sleepOffered(
      handoff.offer(),
      (claimed) => sleepUnlessWoken(woken, ms, opts.signal, claimed),
      (g) => handoff.giveBack(g),
    );
    if (handed !== undefined) return handed;
  }
}

/** The wait, cut short by a hand-off claim, or by the signal's abort (rejecting with its reason). */
async function sleepUnlessWoken(woken: ReleaseWait, ms: number, signal: AbortSignal | undefined, claimed?: Promise<void>): Promise<void> {
  if (signal?.aborted) {
    woken.cancel();
    throw signal.reason;
  }
  const ends: Promise<void>[] = [woken.within(ms)];
  if (claimed) ends.push(claimed);
  let onAbort: (() => void) | undefined;
  if (signal) {
    ends.push(
      new Promise<never>((_, reject) => {
        onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    );
  }
  try {
    await Promise.race(ends);
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    // Also ends `within` and its timer, whichever way the sleep ended.
    woken.cancel();
  }
}
