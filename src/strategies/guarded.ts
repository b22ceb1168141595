import { LockNotHeldError } from '../locks/errors.js';
import type { Lock } from '../locks/lock.js';
import { withLock, type Held } from '../locks/scope.js';
import type { Fence } from '../fencing.js';
import { STOCK_LOCK_RESOURCE } from '../stock/product.js';
import { readThenWrite } from '../stock/read-then-write.js';
import type { DeductRequest, DeductResult, SharedDeps, Strategy } from './strategy.js';

/**
 * A lock strategy's deduction: the same read-then-write as `none`, inside the lock's scope, so
 * locks compare like for like. The write happens only while the lock still says it is held, and
 * with `fenced`, only while the stock accepts the grant's token. A failed release after the write
 * has committed is reported, not hidden, and does not turn a real deduction into an error.
 * `scope` is withLock, or withLockReentered for the reentrant strategies.
 */
export function guarded(lock: Lock, deps: SharedDeps, scope = withLock): Pick<Strategy, 'guard' | 'deduct' | 'sqlFenced'> {
  const deduct = async (req: DeductRequest): Promise<DeductResult> => {
    const opts = { ...req.lock, owner: req.owner, ...(req.signal && { signal: req.signal }) };
    const { value: outcome, releaseError } = await scope(lock, STOCK_LOCK_RESOURCE, opts, async (held) => {
      req.hooks?.afterAcquire?.();
      const fence = req.fenced ? await fenceOf(lock, held) : undefined;
      return readThenWrite(deps.stock[req.store], req.workMs, {
        fence,
        sale: req.requestId,
        signal: req.signal,
        beforeWrite: () => {
          held.assertHeld();
          req.hooks?.beforeWrite?.();
        },
      });
    });
    if (!releaseError) return { outcome };
    const expired = releaseError instanceof LockNotHeldError;
    if (!expired) deps.logger.warn({ err: releaseError }, 'lock release failed');
    return { outcome, warning: expired ? 'lock_expired_before_release' : 'lock_release_failed' };
  };
  if (!lock.fencing) return { guard: {}, deduct };
  return { guard: { fencing: lock.fencing }, sqlFenced: deps.stock.mysql.sql.readThenWriteFenced[lock.fencing], deduct };
}

/** A strategy whose deduction is the shared read-then-write under `lock`, on either store. */
export function lockedStrategy(deps: SharedDeps, lock: Lock, about: Pick<Strategy, 'name' | 'family' | 'description' | 'expected'>, scope = withLock): Strategy {
  return { ...about, stores: ['mysql', 'redis'], sql: deps.stock.mysql.sql.readThenWrite, ...guarded(lock, deps, scope) };
}

async function fenceOf(lock: Lock, held: Held): Promise<Fence> {
  // The route accepts fenced=1 only for strategies whose lock issues tokens.
  if (!lock.fencing || !held.fencingToken) throw new TypeError(`lock for ${held.resource} issues no fencing token`);
  return { source: lock.fencing, token: await held.fencingToken() };
}
