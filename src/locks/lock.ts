// The one interface every lock implements. A lock knows resources and owners, nothing of stock or HTTP.

export interface LockOptions {
  /** Lease length; locks without expiry ignore it. */
  ttlMs: number;
  /** Longest wait before acquire rejects with LockTimeoutError. */
  waitMs: number;
  /** Pause between attempts for locks that retry by polling. */
  retryMs: number;
}

export interface Lease {
  /** Aborted when the holder learns the lock is gone (renewal failed, session expired). */
  readonly lost: AbortSignal;
  /** Gives the lock up; rejects with LockNotHeldError when this owner no longer holds it. */
  release(): Promise<void>;
}

export interface Lock {
  /** Resolves once the current owner (see owner.ts) holds `resource`. */
  acquire(resource: string, opts: LockOptions): Promise<Lease>;
}

/** For locks that cannot learn of a loss: their signal never fires. */
export const neverLost: AbortSignal = new AbortController().signal;
