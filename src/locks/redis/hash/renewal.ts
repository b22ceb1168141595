// The watchdog's timer (Redisson's lockWatchdog): extends a held lease every ttl/3, and fires
// `lost` when a renewal fails or the lease runs out before one succeeds.
import { LeaseClock } from '../../lease-clock.js';
import { reportLockEvent } from '../../observer.js';

/** What the watchdog renews: a hold that can extend its own lease (a lock's, a permit's). */
export interface Renewable {
  /** Extends the lease to its full length from now; false when the hold is gone. */
  renew(): Promise<boolean>;
}

/**
 * The watchdog's timer (Redisson's lockWatchdog): every ttl/3 it extends the lease, but only while
 * this owner still holds it. `lost` aborts when a renewal fails, and also when the lease runs out
 * before any renewal succeeds (a renewal stuck on a slow Redis, a blocked event loop), so the
 * holder stops before writing on a lock Redis may already have given to someone else.
 */
export class Renewal {
  private readonly clock: LeaseClock;

  /** `grantedAt`: when the acquire that set the lease was sent (never later than Redis set it). */
  constructor(
    private readonly scripts: Renewable,
    private readonly ttlMs: number,
    grantedAt: number,
  ) {
    this.clock = new LeaseClock(ttlMs, grantedAt, () => void this.tick(), 'the lease ran out before a renewal succeeded');
  }

  get lost(): AbortSignal {
    return this.clock.lost;
  }

  stop(): void {
    this.clock.stop();
  }

  private async tick(): Promise<void> {
    const sentAt = Date.now();
    let why = 'lease no longer held by this owner at renewal';
    let renewed = false;
    try {
      renewed = await this.scripts.renew();
    } catch (err) {
      why = `renewal failed: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (this.clock.stopped) return;
    reportLockEvent(renewed ? 'renewal' : 'renewal_failed');
    if (!renewed) return this.clock.lose(why);
    this.clock.validUntil(sentAt + this.ttlMs);
    this.clock.schedule();
  }
}
