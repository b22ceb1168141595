import { ExecutionError, ResourceLockedError, type Redlock, type RedlockHold, type RedlockSettings } from './redlock-package.js';
import { DependencyDownError } from '../../dependency.js';
import { LockNotHeldError, LockTimeoutError } from '../errors.js';
import { neverLost, type Lease, type Lock, type LockOptions } from '../lock.js';
import { redlockKey } from './keys.js';

/** The retry settings for one acquire, derived from the request's wait bound and poll pause. */
export function redlockRetrySettings(opts: LockOptions): Partial<RedlockSettings> {
  return {
    retryDelay: opts.retryMs,
    // Redlock tries once, then retryCount more times retryDelay (± retryJitter) apart.
    retryCount: Math.floor(opts.waitMs / opts.retryMs),
    retryJitter: Math.floor(opts.retryMs / 2),
  };
}

/**
 * RedLock (course §2.9) through the `redlock` package: the same SET NX PX on N independent
 * masters, held only when a majority agreed within the lease minus clock drift.
 *
 * Failures: a majority of servers unreachable → DependencyDownError('redlock') (503
 * redlock_unavailable); a reachable majority that kept saying "locked" for the whole retry window
 * → LockTimeoutError (503 lock_timeout).
 */
export class RedlockLock implements Lock {
  constructor(private readonly redlock: Redlock) {}

  async acquire(resource: string, opts: LockOptions): Promise<Lease> {
    let hold: RedlockHold;
    try {
      hold = await this.redlock.acquire([redlockKey(resource)], opts.ttlMs, redlockRetrySettings(opts));
    } catch (err) {
      throw await explainFailure(err, () => new LockTimeoutError(resource, opts.waitMs));
    }
    return {
      lost: neverLost,
      release: async () => {
        try {
          // No retries: an unreleased minority expires on its own.
          await this.redlock.release(hold, { retryCount: 0 });
        } catch (err) {
          throw await explainFailure(err, () => new LockNotHeldError(resource));
        }
      },
    };
  }
}

/** Tells "servers unreachable" from "the lock was not ours to take or give back". */
async function explainFailure(err: unknown, whenLocked: () => Error): Promise<Error> {
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
