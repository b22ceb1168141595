// The one interface every lock implements. A lock knows resources and owners, nothing of stock or HTTP.
import { LockNotHeldError } from './errors.js';

/** The request's lock tunables, as GET /check/lock parses them. */
export interface LockOptions {
  /** Lease length; locks without expiry ignore it. */
  ttlMs: number;
  /** Longest wait before acquire rejects with LockTimeoutError. */
  waitMs: number;
  /** Pause between attempts for locks that retry by polling. */
  retryMs: number;
}

/**
 * What one acquire asks for: the tunables plus who is asking. The owner is explicit: the caller
 * names it (one token per request, see owner.ts), and the same owner asking again is what a
 * reentrant lock re-enters on. Java keys this on the thread; Node has no thread to key on.
 */
export interface AcquireOptions extends LockOptions {
  owner: string;
}

export interface Lease {
  /** Aborted when the holder learns the lock is gone (renewal failed, session expired). */
  readonly lost: AbortSignal;
  /** Gives the lock up; rejects with LockNotHeldError when this owner no longer holds it. */
  release(): Promise<void>;
}

export interface Lock {
  /** Resolves once `opts.owner` holds `resource`. */
  acquire(resource: string, opts: AcquireOptions): Promise<Lease>;
}

/** For locks that cannot learn of a loss: their signal never fires. */
export const neverLost: AbortSignal = new AbortController().signal;

/**
 * A lease whose release runs once: a second release of the same lease throws LockNotHeldError
 * instead of giving back a hold it no longer has (which, on a counting lock, would be another's).
 */
export function leaseOf(resource: string, lost: AbortSignal, release: () => Promise<unknown>): Lease {
  let released = false;
  return {
    lost,
    release: async () => {
      if (released) throw new LockNotHeldError(resource);
      released = true;
      await release();
    },
  };
}

/** The owner of an acquire, checked: a missing owner is a bug in the caller, never a fresh identity. */
export function ownerOf(opts: AcquireOptions): string {
  if (typeof opts.owner !== 'string' || opts.owner.length === 0) throw new TypeError('acquire needs an explicit owner (opts.owner)');
  return opts.owner;
}
