// The errors every lock throws: its wait ran out (LockTimeoutError), its hold was lost
// (LockLostError), or a release came from an owner that no longer holds it (LockNotHeldError).
/** The wait for a lock ran out (waitMs). */
export class LockTimeoutError extends Error {
  constructor(resource: string, waitMs: number) {
    super(`lock "${resource}" not acquired within ${waitMs} ms`);
  }
}

/** The holder learned it no longer holds the lock (lease renewal failed, session expired). */
export class LockLostError extends Error {
  constructor(resource: string, why: string) {
    super(`lock "${resource}" was lost: ${why}`);
  }
}

/** Releasing a lock the caller does not hold (anymore) is a bug or an expiry, never a silent no-op. */
export class LockNotHeldError extends Error {
  constructor(resource: string) {
    super(`lock "${resource}" is not held by this owner`);
  }
}
