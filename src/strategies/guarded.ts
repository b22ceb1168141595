import { LockNotHeldError } from '../locks/errors.js';
import type { Lock } from '../locks/lock.js';
import { withLock } from '../locks/scope.js';
import { STOCK_LOCK_RESOURCE } from '../stock/product.js';
import { readThenWrite } from '../stock/read-then-write.js';
import type { DeductRequest, DeductResult, SharedDeps } from './strategy.js';

/**
 * A lock strategy's deduction: the same read-then-write as `none`, inside the lock's scope, so
 * locks compare like for like. The write happens only while the lock still says it is held. A
 * failed release after the write has committed is reported, not hidden, and does not turn a real
 * deduction into an error. `scope` is withLock, or withLockReentered for the reentrant strategies.
 */
export function guardedReadThenWrite(lock: Lock, deps: SharedDeps, scope = withLock) {
  return async (req: DeductRequest): Promise<DeductResult> => {
    const opts = { ...req.lock, owner: req.owner };
    const { value: outcome, releaseError } = await scope(lock, STOCK_LOCK_RESOURCE, opts, (held) =>
      readThenWrite(deps.stock[req.store], req.workMs, () => held.assertHeld()),
    );
    if (!releaseError) return { outcome };
    const expired = releaseError instanceof LockNotHeldError;
    if (!expired) deps.logger.warn({ err: releaseError }, 'lock release failed');
    return { outcome, warning: expired ? 'lock_expired_before_release' : 'lock_release_failed' };
  };
}
