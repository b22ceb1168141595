// redlock (course §2.9, Antirez's RedLock) through the redlock package: SET NX PX on N masters,
// held on a majority with validity left; no fencing token (Kleppmann). Adds hints and hand-off.
import { randomBytes } from 'node:crypto';
import { E_TIMEOUT, Mutex, withTimeout } from 'async-mutex';
import type { Redis } from 'ioredis';
import { DependencyDownError } from '../../../dependency.js';
import { LockLostError, LockNotHeldError, LockTimeoutError } from '../../errors.js';
import { expiringAt, leaseOf, ownerOf, type AcquireOptions, type Lease, type Lock } from '../../lock.js';
import { remaining, sleep } from '../../../time.js';
import { isOne, luaScript } from '../../../redis-client/lua.js';
import { Handoffs, sleepOffered } from '../../handoff.js';
import { redlockKey } from '../keys.js';
import { ExecutionError, RedlockLease, ResourceLockedError, type Redlock, type RedlockHold } from './package.js';
import type { RedlockReleaseHints, ReleaseHint } from './release-hints.js';

/** On one master: where the holder's value is still there, it becomes the waiter's, with the waiter's lease. */
const redlockHandoff = luaScript('redlock-handoff', ['lock'], ['holderValue', 'waiterValue', 'waiterTtlMs'], isOne);

/**
 * Backoff ceiling, in units of retryMs: a pause grows retryMs·2^failures up to this. With release
 * hints the timer is only the fallback (a split vote, a holder whose lease must run out).
 */
const MAX_BACKOFF_FACTOR = 32;

/** Exponential backoff with full jitter: uniform in [0, min(cap, retryMs·2^failures)). */
function backoff(retryMs: number, failures: number): number {
  return Math.random() * Math.min(retryMs * MAX_BACKOFF_FACTOR, retryMs * 2 ** Math.min(failures, 30));
}

/**
 * Random pause between a release hint and the next attempt: uniform in [0, retryMs / this). Every
 * process hears the same hint at the same moment, and attempts sent within a fraction of a
 * millisecond of each other reach the masters in different orders and split the votes (nobody
 * gets 3 of 5, or all 3 survivors of 5).
 */
const HINT_JITTER_DIVISOR = 4;

/**
 * RedLock (docs/course.md §2.9) through the `redlock` package: the same SET NX PX on N independent
 * masters, held only when a majority agreed with validity left (ttl − elapsed − drift, the
 * package's `expiration`). `lost` fires when that validity runs out, so work longer than the
 * lease is refused before its write. It issues no fencing token: five independent counters give
 * no single order (Kleppmann), so a holder paused after its check can still write late.
 *
 * Each attempt is one package call with retryCount 0, which releases a failed attempt's partial
 * votes at once (its own retries would keep them and retry with the same value, which its
 * acquire script then counts as "locked"). How attempts are spaced is what keeps it live:
 *
 * - In this process only the first waiter for a resource contends; the others queue behind it,
 *   first come first served. When every request polled every 20 ms, 100 waiters made about 100
 *   failed attempts (10 scripts each) per grant: both cores went to failures, the holder's own
 *   work waited in a lagging event loop, 25–50 grants/s, and the unlucky waiters ran out of
 *   waitMs, even on one instance where votes cannot split. A second waiter of the same process
 *   could only win where the first lost anyway: its scripts reach every master after the first's.
 * - A holder announces its release on the masters (RedlockReleaseHints): the waiting contender
 *   of every process tries again then, after a random pause so they do not split the votes.
 * - A holder whose process has its contender asleep passes the lock straight to it (handoff.ts):
 *   on every master, its value becomes the contender's in one script, and the contender holds once
 *   a quorum did so with validity left, as after its own acquire (the slower masters' scripts finish
 *   on their own). Up to MAX_HANDOFF_STREAK times in a row; then the holder releases and announces
 *   it, so every process contends again.
 * - A contender that comes while a request of its own process holds the lock does not attempt:
 *   the attempt would fail on every master. It sleeps first, offered for the hand-off.
 * - Without a hint, a failed contender waits a random [0, retryMs·2^failures) capped at
 *   32·retryMs (exponential backoff with full jitter), as the RedLock description asks: random,
 *   so contenders that split the votes do not split them again, and growing, so a lock held for
 *   long (a crashed holder's lease) costs few attempts.
 *
 * Failures: a majority of servers unreachable → DependencyDownError('redlock') at once (503
 * redlock_unavailable); a reachable majority that kept saying "locked" until waitMs →
 * LockTimeoutError (503 lock_timeout).
 */
export class RedlockLock implements Lock {
  readonly expiry = 'lease';
  /** Each master's vote expires with the lease: a lost reply's votes are not given back. */
  readonly lostAcquire = 'expires with its lease';
  /** Per resource, this process's waiters in arrival order (async-mutex is first come first served). */
  private readonly lines = new Map<string, Mutex>();
  /** This process's contender asleep between attempts, by the lease it asked for (tests wait on `sleeping`). */
  readonly handoffs = new Handoffs<{ ttlMs: number }, RedlockHold>();
  /** Per resource, the validity end of the hold a request of this process has now. */
  private readonly heldHere = new Map<string, number>();

  constructor(
    private readonly redlock: Redlock,
    private readonly hints?: RedlockReleaseHints,
  ) {}

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    // The package writes a random value of its own; the owner is checked only so every lock asks the same.
    ownerOf(opts);
    const deadline = Date.now() + opts.waitMs;
    this.hints?.watch(resource);
    let leaveLine: () => void;
    try {
      leaveLine = await untilAborted(withTimeout(this.lineFor(resource), remaining(deadline)).acquire(), opts.signal, (leave) => leave());
    } catch (err) {
      throw err === E_TIMEOUT ? new LockTimeoutError(resource, opts.waitMs) : err;
    }
    let hold: RedlockHold;
    try {
      hold = await this.contend(resource, opts, deadline);
    } finally {
      leaveLine();
    }
    // Validity ends at the package's `expiration` (start + ttl − drift): past it a majority may have
    // expired the key, so `lost` fires then and the holder refuses to write (503 lock_lost).
    const validity = expiringAt(hold.expiration, `RedLock validity of ${resource} ran out (ttl − elapsed − drift) before the work finished`);
    return leaseOf(resource, validity.lost, async () => {
      validity.cancel();
      const claim = this.handoffs.claim(resource);
      if (claim) {
        let passed: RedlockHold | undefined;
        try {
          passed = await this.handOff(hold, claim.waiter.ttlMs);
        } finally {
          claim.settle(passed);
        }
        if (passed) return;
      }
      this.heldHere.delete(resource);
      try {
        // No retries: an unreleased minority expires on its own.
        await this.redlock.release(hold, { retryCount: 0 });
      } catch (err) {
        throw await explainFailure(err, () => new LockNotHeldError(resource));
      } finally {
        // After the deletes (same connection per master, so each master frees the key first).
        this.hints?.announce(resource, hold.value);
      }
    });
  }

  /**
   * Passes `hold` to this process's sleeping contender: the contender's hold when a quorum of
   * masters took its value with validity left, else undefined, with whatever moved given back (the
   * holder then releases as usual).
   */
  private async handOff(hold: RedlockHold, ttlMs: number): Promise<RedlockHold | undefined> {
    const [key] = hold.resources;
    const value = randomBytes(16).toString('hex');
    const start = Date.now();
    // The package's connections, which connectRedis made (the project's scripts are defined on them).
    const masters = [...this.redlock.clients] as Redis[];
    const votes = masters.map((m) => redlockHandoff.run(m, { lock: key as string }, { holderValue: hold.value, waiterValue: value, waiterTtlMs: ttlMs }));
    // Held once a majority moved, as an acquire is: the slower masters' scripts finish on their own.
    const quorum = await majorityOf(votes);
    // The package's validity, as it computes it: ttl − elapsed − drift (round(ttl × driftFactor) + 2 ms).
    const expiration = start + ttlMs - Math.round(ttlMs * this.redlock.settings.driftFactor) - 2;
    const passed = new RedlockLease(this.redlock, [key as string], value, [], expiration);
    if (quorum && expiration > Date.now()) return passed;
    // Nothing passed on: whatever moved, now or later, is given back once every script has answered.
    const settled = await Promise.allSettled(votes);
    if (settled.some((v) => v.status === 'fulfilled' && v.value)) await this.redlock.release(passed, { retryCount: 0 }).catch(() => undefined);
    return undefined;
  }

  private lineFor(resource: string): Mutex {
    let line = this.lines.get(resource);
    if (!line) {
      line = new Mutex();
      this.lines.set(resource, line);
    }
    return line;
  }

  /** Attempts until a quorum agrees with validity left, or the deadline passes. */
  private async contend(resource: string, opts: AcquireOptions, deadline: number): Promise<RedlockHold> {
    const hold = await this.contendOnce(resource, opts, deadline);
    this.heldHere.set(resource, hold.expiration);
    return hold;
  }

  private async contendOnce(resource: string, opts: AcquireOptions, deadline: number): Promise<RedlockHold> {
    let failures = 0;
    // Another request of this process holds the lock: the first attempt would fail (ten scripts for
    // nothing), so the contender sleeps first, offered for the hand-off, until the hold's validity ends at most.
    const heldHereMs = (this.heldHere.get(resource) ?? 0) - Date.now();
    let skip = heldHereMs > 0;
    for (;;) {
      opts.signal?.throwIfAborted();
      const hint = this.hints?.nextRelease(resource);
      let hold: RedlockHold | undefined;
      try {
        if (!skip) hold = await this.redlock.acquire([redlockKey(resource)], opts.ttlMs, { retryCount: 0 });
      } catch (err) {
        const failure = await explainFailure(err, () => new LockTimeoutError(resource, opts.waitMs));
        if (!(failure instanceof LockTimeoutError)) {
          hint?.cancel();
          throw failure;
        }
      }
      if (hold) {
        hint?.cancel();
        this.handoffs.granted(resource);
        // The package does not check that validity is left: an acquisition slower than the lease
        // holds nothing it may write under. Refused at once, as a lease that ran out mid-work is.
        if (hold.expiration > Date.now()) return hold;
        await this.redlock.release(hold, { retryCount: 0 }).catch(() => undefined);
        throw new LockLostError(resource, `acquiring took longer than the lease (ttlMs ${opts.ttlMs}): no validity left`);
      }
      const left = remaining(deadline);
      if (left <= 0) {
        hint?.cancel();
        throw new LockTimeoutError(resource, opts.waitMs);
      }
      failures++;
      const pause = Math.min(skip ? Math.min(heldHereMs, opts.retryMs * MAX_BACKOFF_FACTOR) : backoff(opts.retryMs, failures), left);
      skip = false;
      let hinted = false;
      const passed = await sleepOffered(
        this.handoffs.offer(resource, { ttlMs: opts.ttlMs }),
        // A contender whose client left stops at once (a hand-off claimed meanwhile is given back).
        async (claimed) => (hinted = await untilAborted(pauseUnlessHinted(pause, hint, claimed), opts.signal)),
        (h) => this.redlock.release(h, { retryCount: 0 }),
      );
      if (passed) return passed;
      if (hinted) {
        // The lock was free a moment ago: a new round of backoff, after a random pause.
        failures = 0;
        const jitter = Math.min(Math.random() * (opts.retryMs / HINT_JITTER_DIVISOR), remaining(deadline));
        if (jitter >= 1) await sleep(jitter);
      }
    }
  }
}

/** True once a majority of `votes` moved the lock, false once a majority cannot (a failed script counts against). */
function majorityOf(votes: readonly Promise<boolean>[]): Promise<boolean> {
  const needed = Math.floor(votes.length / 2) + 1;
  return new Promise<boolean>((resolve) => {
    let yes = 0;
    let no = 0;
    for (const vote of votes) {
      void vote
        .then(
          (moved) => (moved ? ++yes : ++no),
          () => ++no,
        )
        .then(() => {
          if (yes >= needed) resolve(true);
          else if (no > votes.length - needed) resolve(false);
        });
    }
  });
}

/** Sleeps `ms`; true when a release hint ends it sooner, false on the timer or a hand-off claim. */
async function pauseUnlessHinted(ms: number, hint: ReleaseHint | undefined, claimed: Promise<void>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeUp = hint ? hint.within(ms) : new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([timeUp, claimed.then(() => false)]);
  } finally {
    clearTimeout(timer);
    hint?.cancel();
  }
}

/**
 * `work`, or the signal's reason once it aborts first; a result that arrives after the abort goes
 * to `discard` (a place in line taken too late is left again).
 */
async function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined, discard?: (late: T) => void): Promise<T> {
  if (!signal) return work;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } catch (err) {
    if (signal.aborted)
      void work.then(
        (late) => discard?.(late),
        () => undefined,
      );
    throw err;
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/** Tells "servers unreachable" from "the lock was not ours to take or give back". */
export async function explainFailure(err: unknown, whenLocked: () => Error): Promise<Error> {
  if (!(err instanceof ExecutionError)) return err instanceof Error ? err : new Error(String(err));
  const last = await err.attempts.at(-1);
  if (!last) return whenLocked();
  const failures = [...last.votesAgainst.values()];
  const unreachable = failures.filter((e) => !(e instanceof ResourceLockedError)).length;
  if (unreachable > last.membershipSize - last.quorumSize) {
    return new DependencyDownError('redlock', new Error(`${unreachable} of ${last.membershipSize} servers failed: ${failures[0]?.message}`));
  }
  return whenLocked();
}
