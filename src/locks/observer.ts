// What the locks tell about themselves while they work: how long an acquire waited, how long the
// lock was held, and the events worth counting (hand-offs, renewals, lost leases, …). The locks
// know only this interface; the service gives each request's deduction an observer (bound to its
// strategy) that turns these into metrics. An AsyncLocalStorage carries it, so timers a lock sets
// during the request (a watchdog's renewals) report to the same observer.
import { AsyncLocalStorage } from 'node:async_hooks';

export type LockEvent =
  /** The lock passed straight to a sleeper of this process (src/locks/handoff.ts). */
  | 'handoff'
  /** A watchdog renewal extended the lease. */
  | 'renewal'
  /** A watchdog renewal failed or found the lease gone. */
  | 'renewal_failed'
  /** The lease was lost while the work held it (its `lost` signal fired). */
  | 'lease_lost'
  /** The store refused a write with a stale fencing token. */
  | 'fencing_refused'
  /** The work finished but the release found the lease already gone (it ran out, or another owner took it). */
  | 'release_after_expiry'
  /** An optimistic attempt made again after a conflict (a version check, a WATCHed transaction). */
  | 'retry_conflict'
  /** A polling lock's attempt made again after finding the lock taken. */
  | 'retry_busy';

export type AcquireOutcome = 'acquired' | 'timeout' | 'error';

export interface LockObserver {
  /** An acquire ended after `seconds`. */
  waited(seconds: number, outcome: AcquireOutcome): void;
  /** A lock was held for `seconds`, from the grant to the end of its release. */
  held(seconds: number): void;
  event(kind: LockEvent): void;
}

const current = new AsyncLocalStorage<LockObserver>();

/** Runs `fn` with `observer` receiving what the locks it uses report. */
export function observedBy<T>(observer: LockObserver, fn: () => T): T {
  return current.run(observer, fn);
}

/** The observer of the work running now, if any. */
export function lockObserver(): LockObserver | undefined {
  return current.getStore();
}

/** Reports `kind` to the current observer (nothing when none). */
export function reportLockEvent(kind: LockEvent): void {
  current.getStore()?.event(kind);
}
