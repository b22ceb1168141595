import { DependencyDownError } from '../../dependency.js';
import { LockNotHeldError, LockTimeoutError } from '../errors.js';
import { neverLost, type Lease, type Lock, type LockOptions } from '../lock.js';
import { remaining, sleep } from '../wait.js';
import { redlockKey } from './keys.js';
import { ExecutionError, ResourceLockedError, type Redlock, type RedlockHold } from './redlock-package.js';

/** Pause before the next attempt: retryDelay ± retryJitter, as the package would wait. */
function retryPause(opts: LockOptions): number {
  const retryDelay = opts.retryMs;
  const retryJitter = opts.retryMs / 2;
  return Math.max(0, retryDelay + (Math.random() * 2 - 1) * retryJitter);
}

/**
 * RedLock (course §2.9) through the `redlock` package: the same SET NX PX on N independent
 * masters, held only when a majority agreed within the lease minus clock drift.
 *
 * Each attempt is one package call with retryCount 0 and the retries are ours: the package's own
 * retry loop (5.0.0-beta.2) keeps a failed attempt's partial locks and retries with the same
 * value, which its acquire script then counts as "locked" — under contention no client ever
 * reaches a quorum until the leases expire. With retryCount 0 a failed attempt releases its
 * partial locks before we pause retryMs ± retryMs/2 and try again, until waitMs.
 *
 * Failures: a majority of servers unreachable → DependencyDownError('redlock') at once (503
 * redlock_unavailable); a reachable majority that kept saying "locked" until waitMs →
 * LockTimeoutError (503 lock_timeout).
 */
export class RedlockLock implements Lock {
  constructor(private readonly redlock: Redlock) {}

  async acquire(resource: string, opts: LockOptions): Promise<Lease> {
    const deadline = Date.now() + opts.waitMs;
    const hold = await this.acquireWithin(resource, opts, deadline);
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

  private async acquireWithin(resource: string, opts: LockOptions, deadline: number): Promise<RedlockHold> {
    for (;;) {
      try {
        return await this.redlock.acquire([redlockKey(resource)], opts.ttlMs, { retryCount: 0 });
      } catch (err) {
        const failure = await explainFailure(err, () => new LockTimeoutError(resource, opts.waitMs));
        if (!(failure instanceof LockTimeoutError)) throw failure;
        const pause = retryPause(opts);
        if (remaining(deadline) <= pause) throw failure;
        await sleep(pause);
      }
    }
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
