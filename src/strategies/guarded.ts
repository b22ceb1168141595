import { LockNotHeldError } from '../locks/errors.js';
import type { Lease, LeaseExtras, Lock } from '../locks/lock.js';
import { withLock, type Held } from '../locks/scope.js';
import type { Fence } from '../fencing.js';
import { monotonicMs } from '../time.js';
import { STOCK_LOCK_RESOURCE } from '../stock/product.js';
import { readThenWrite } from '../stock/read-then-write.js';
import type { DeductRequest, DeductResult, LockedDeduction, SharedDeps } from './strategy.js';

/**
 * A lock strategy's deduction: the same read-then-write as `none`, inside the lock's scope, so
 * locks compare like for like. The write happens only while the lock still says it is held, and
 * with `fenced`, only while the stock accepts the grant's token. A failed release after the write
 * has committed is reported, not hidden, and does not turn a real deduction into an error.
 */
export function guardedDeduction<L extends Lease>(
  deps: Pick<SharedDeps, 'stock' | 'logger'>,
  declared: LockedDeduction<L>,
): (req: DeductRequest) => Promise<DeductResult> {
  const { lock, scope = withLock, answer } = declared;
  return async (req) => {
    const pause = req.hooks?.at;
    const opts = { ...req.lock, owner: req.owner, ...(req.signal && { signal: req.signal }), ...(pause && { pause }) };
    let fromGrant: Pick<DeductResult, 'ticket'> = {};
    const record = req.hold;
    const { value: outcome, releaseError } = await scope(lock, STOCK_LOCK_RESOURCE, opts, async (held) => {
      if (record) record.grantedAt = monotonicMs();
      try {
        if (answer) fromGrant = await answer(held);
        // The token is on the lease already (no round trip) for every lock that issues one.
        const token = lock.fencing && held.fencingToken ? await held.fencingToken() : undefined;
        if (record && token !== undefined) record.token = token;
        req.hooks?.afterAcquire?.();
        // the token read above: a second read is a second round trip (ZooKeeper's), and the store's fence refuses a stale one anyway
        const fence = req.fenced ? await fenceOf(lock, held, token) : undefined;
        const done = await readThenWrite(deps.stock[req.store], req.workMs, {
          fence,
          sale: req.requestId,
          signal: req.signal,
          beforeWrite: () => {
            held.assertHeld();
            req.hooks?.beforeWrite?.();
            if (record) record.writeStartedAt = monotonicMs();
          },
        });
        if (record?.writeStartedAt !== undefined) record.writeEndedAt = monotonicMs();
        return done;
      } finally {
        if (record) record.releasedAt = monotonicMs();
      }
    });
    if (!releaseError) return { outcome, ...fromGrant };
    const expired = releaseError instanceof LockNotHeldError;
    if (!expired) deps.logger.warn({ err: releaseError }, 'lock release failed');
    return { outcome, warning: expired ? 'lock_expired_before_release' : 'lock_release_failed', ...fromGrant };
  };
}

async function fenceOf<L extends Lease>(lock: Lock<L>, held: Held<LeaseExtras<L>>, token: bigint | undefined): Promise<Fence> {
  // The route accepts fenced=1 only for strategies whose lock issues tokens.
  if (!lock.fencing || !held.fencingToken) throw new TypeError(`lock for ${held.resource} issues no fencing token`);
  return { source: lock.fencing, token: token ?? (await held.fencingToken()) };
}
