// The lock's lifetime as a scope: acquire, run the work, release, whatever the work does. Nothing
// outside the scope can hold on to a lease or forget to give it back.
import { FencedError } from '../fencing.js';
import { LockLostError, LockNotHeldError, LockTimeoutError } from './errors.js';
import type { AcquireOptions, Lease, LeaseExtras, Lock } from './lock.js';
import { lockObserver, type LockObserver } from './observer.js';

/** What the work inside a scope may know about the lock it runs under; `X`, what its lease says beyond Lease. */
export interface Held<X = object> {
  readonly resource: string;
  readonly owner: string;
  /** Aborted when the lock learns it is gone; see Lease.lost. */
  readonly lost: AbortSignal;
  /** Throws LockLostError once `lost` fired: call it right before a write that needs the lock. */
  assertHeld(): void;
  /** This grant's fencing token, for locks that issue one (see Lease.fencingToken). */
  fencingToken?(): Promise<bigint>;
  /** The lease's own extras (the fair lock's ticket): LeaseExtras of the lock's lease. */
  readonly extras: X;
}

/** withLock, or withLockReentered: how a strategy holds its lock around the work. */
export type Scope = <T, L extends Lease>(
  lock: Lock<L>,
  resource: string,
  opts: AcquireOptions,
  work: (held: Held<LeaseExtras<L>>) => Promise<T>,
) => Promise<Scoped<T>>;

export interface Scoped<T> {
  value: T;
  /** Set when the work finished but giving the lock back failed (it expired, or its server is down). */
  releaseError?: Error;
}

export function heldOf<X>(resource: string, owner: string, lost: AbortSignal, extras: X, fencingToken?: () => Promise<bigint>): Held<X> {
  return {
    resource,
    owner,
    lost,
    extras,
    assertHeld() {
      if (lost.aborted) throw new LockLostError(resource, String(lost.reason ?? 'lost during the work'));
    },
    ...(fencingToken && { fencingToken }),
  };
}

/**
 * Runs `work` while `opts.owner` holds `resource`. Work that throws releases the lock (quietly)
 * and rethrows. Work that finishes returns its value even when the release then fails: what the
 * work did has happened and must not be reported as failed; `releaseError` says what went wrong.
 */
export async function withLock<T, L extends Lease>(
  lock: Lock<L>,
  resource: string,
  opts: AcquireOptions,
  work: (held: Held<LeaseExtras<L>>) => Promise<T>,
): Promise<Scoped<T>> {
  const observer = lockObserver();
  const lease = await timedAcquire(observer, () => acquireUnlessAborted(lock, resource, opts));
  const grantedAt = performance.now();
  const onLost = () => observer?.event('lease_lost');
  lease.lost.addEventListener('abort', onLost, { once: true });
  // only a loss while the work runs: a lock may end its `lost` signal as it releases
  const workDone = () => lease.lost.removeEventListener('abort', onLost);
  const released = () => observer?.held((performance.now() - grantedAt) / 1000);
  let value: T;
  try {
    value = await work(heldOf(resource, opts.owner, lease.lost, extrasOf(lease), lease.fencingToken));
    workDone();
  } catch (err) {
    workDone();
    if (err instanceof FencedError) observer?.event('fencing_refused');
    await lease.release().catch(() => undefined);
    released();
    throw err;
  }
  try {
    await lease.release();
    released();
    return { value };
  } catch (err) {
    released();
    if (err instanceof LockNotHeldError || lease.lost.aborted) observer?.event('release_after_expiry');
    return { value, releaseError: err instanceof Error ? err : new Error(String(err)) };
  }
}

/** The acquire, its wait reported to the observer with how it ended. */
async function timedAcquire<L>(observer: LockObserver | undefined, acquire: () => Promise<L>): Promise<L> {
  if (!observer) return acquire();
  const t0 = performance.now();
  try {
    const lease = await acquire();
    observer.waited((performance.now() - t0) / 1000, 'acquired');
    return lease;
  } catch (err) {
    observer.waited((performance.now() - t0) / 1000, err instanceof LockTimeoutError ? 'timeout' : 'error');
    throw err;
  }
}

function extrasOf<L extends Lease>(lease: L): LeaseExtras<L> {
  const { lost: _lost, release: _release, fencingToken: _fencingToken, ...extras } = lease;
  return extras;
}

/**
 * The acquire, given up when `opts.signal` aborts: the caller gets the abort's reason at once, and
 * a grant that arrives after that is given straight back. Locks that poll also stop early (the
 * signal reaches their wait); the others finish their wait on their own, bounded by waitMs.
 */
function acquireUnlessAborted<L extends Lease>(lock: Lock<L>, resource: string, opts: AcquireOptions): Promise<L> {
  const { signal } = opts;
  if (!signal) return lock.acquire(resource, opts);
  signal.throwIfAborted();
  const pending = lock.acquire(resource, opts);
  return new Promise<L>((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason);
      pending.then(
        (late) => late.release().catch(() => undefined),
        () => undefined,
      );
    };
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (lease) => {
        signal.removeEventListener('abort', onAbort);
        resolve(lease);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
