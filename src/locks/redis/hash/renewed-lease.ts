// The lease of a hold the watchdog renews (redis-watchdog, Redisson's primitives): an owner's
// nested holds share one renewal, which stops with the last release.
import type { HoldCounter, HoldKey } from '../../holds.js';
import { leaseOf, type Lease } from '../../lock.js';
import { Renewal, type Renewable } from './renewal.js';

/** A hold the watchdog renews and its owner gives back. */
export interface RenewableHold extends Renewable {
  release(): Promise<unknown>;
}

/**
 * The lease of a hold that the watchdog renews while it is held (WatchdogLock's, Redisson's primitives'): an owner's
 * nested holds share one renewal, counted in `holds`, which stops with the last release.
 * `grantedAt`: when the acquire that was granted was sent.
 */
export function renewedLease(
  holds: HoldCounter<Renewal>,
  key: HoldKey,
  hold: RenewableHold,
  ttlMs: number,
  grantedAt: number,
  fencingToken?: () => Promise<bigint>,
): Lease {
  const renewal = holds.enter(key, () => new Renewal(hold, ttlMs, grantedAt));
  return leaseOf(
    key.resource,
    renewal.lost,
    async () => {
      // Counted down before the await, so an acquire by the same owner meanwhile starts a renewal of its own.
      const left = holds.leave(key, renewal);
      try {
        await hold.release();
      } finally {
        if (left <= 0) renewal.stop();
      }
    },
    fencingToken,
  );
}
