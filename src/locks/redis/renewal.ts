import type { HashLease } from './hash-lease.js';

/**
 * The watchdog's timer (Redisson's lockWatchdog): every ttl/3 it extends the lease, but only while
 * this owner still holds it. A failed renewal aborts `lost`, so the holder stops before writing.
 */
export class Renewal {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly lease: HashLease,
    private readonly everyMs: number,
  ) {
    this.schedule();
  }

  get lost(): AbortSignal {
    return this.controller.signal;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    this.timer = setTimeout(() => void this.tick(), this.everyMs);
    // A pending renewal must not keep a shutting-down process alive.
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    let why = 'lease no longer held by this owner at renewal';
    let renewed = false;
    try {
      renewed = await this.lease.renew();
    } catch (err) {
      why = `renewal failed: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (this.stopped) return;
    if (renewed) return this.schedule();
    this.stopped = true;
    this.controller.abort(why);
  }
}
