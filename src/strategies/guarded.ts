import { LockNotHeldError } from '../locks/errors.js';
import type { Lock } from '../locks/lock.js';
import { STOCK_LOCK_RESOURCE } from '../stock/product.js';
import { readThenWrite } from '../stock/read-then-write.js';
import type { DeductRequest, DeductResult, SharedDeps } from './strategy.js';

/**
 * A lock strategy's deduction: the same read-then-write as `none`, under `lock`, so locks
 * compare like for like. A failed release after the write has committed is reported, not hidden,
 * and does not turn a real deduction into an error.
 */
export function guardedReadThenWrite(lock: Lock, deps: SharedDeps) {
  return async (req: DeductRequest): Promise<DeductResult> => {
    const lease = await lock.acquire(STOCK_LOCK_RESOURCE, req.lock);
    let outcome: DeductResult['outcome'];
    try {
      outcome = await readThenWrite(deps.stock[req.store], req.workMs, lease.lost);
    } catch (err) {
      await lease.release().catch(() => undefined);
      throw err;
    }
    try {
      await lease.release();
      return { outcome };
    } catch (err) {
      if (!(err instanceof LockNotHeldError)) deps.logger.warn({ err }, 'lock release failed');
      return { outcome, warning: err instanceof LockNotHeldError ? 'lock_expired_before_release' : 'lock_release_failed' };
    }
  };
}
