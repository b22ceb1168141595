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
  private readonly controller = new AbortController();
  private readonly everyMs: number;
  private renewTimer: NodeJS.Timeout | undefined;
  private expiryTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  /** `grantedAt`: when the acquire that set the lease was sent (never later than Redis set it). */
  constructor(
    private readonly scripts: Renewable,
    private readonly ttlMs: number,
    grantedAt: number,
  ) {
    this.everyMs = Math.max(1, Math.floor(ttlMs / 3));
    this.validUntil(grantedAt + ttlMs);
    this.schedule();
  }

  get lost(): AbortSignal {
    return this.controller.signal;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.renewTimer);
    clearTimeout(this.expiryTimer);
  }

  private lose(why: string): void {
    if (this.stopped) return;
    this.stop();
    this.controller.abort(why);
  }

  private validUntil(at: number): void {
    clearTimeout(this.expiryTimer);
    this.expiryTimer = setTimeout(() => this.lose('the lease ran out before a renewal succeeded'), Math.max(0, at - Date.now()));
    this.expiryTimer.unref();
  }

  private schedule(): void {
    this.renewTimer = setTimeout(() => void this.tick(), this.everyMs);
    // A pending renewal must not keep a shutting-down process alive.
    this.renewTimer.unref();
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
    if (this.stopped) return;
    reportLockEvent(renewed ? 'renewal' : 'renewal_failed');
    if (!renewed) return this.lose(why);
    this.validUntil(sentAt + this.ttlMs);
    this.schedule();
  }
}
