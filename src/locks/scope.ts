// The lock's lifetime as a scope: acquire, run the work, release, whatever the work does. Nothing
// outside the scope can hold on to a lease or forget to give it back.
import { LockLostError } from './errors.js';
import type { AcquireOptions, Lease, LeaseExtras, Lock } from './lock.js';

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
export type Scope = <T, L extends Lease>(lock: Lock<L>, resource: string, opts: AcquireOptions, work: (held: Held<LeaseExtras<L>>) => Promise<T>) => Promise<Scoped<T>>;

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
export async function withLock<T, L extends Lease>(lock: Lock<L>, resource: string, opts: AcquireOptions, work: (held: Held<LeaseExtras<L>>) => Promise<T>): Promise<Scoped<T>> {
  const lease = await acquireUnlessAborted(lock, resource, opts);
  let value: T;
  try {
    value = await work(heldOf(resource, opts.owner, lease.lost, extrasOf(lease), lease.fencingToken));
  } catch (err) {
    await lease.release().catch(() => undefined);
    throw err;
  }
  try {
    await lease.release();
    return { value };
  } catch (err) {
    return { value, releaseError: err instanceof Error ? err : new Error(String(err)) };
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
      pending.then((late) => late.release().catch(() => undefined), () => undefined);
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
