// A held lease's clock, as a holder that renews its own lease keeps it: a renewal every ttl/3, and
// `lost` once the lease runs out before a renewal succeeds (a renewal stuck on a slow server, a
// blocked event loop), so the holder stops before writing on a lock the server may have given away.
// Redisson's watchdog (redis/hash/renewal.ts) and etcd's keep-alive (etcd/lease.ts) both run on it.
export class LeaseClock {
  private readonly controller = new AbortController();
  private readonly everyMs: number;
  private renewTimer: NodeJS.Timeout | undefined;
  private expiryTimer: NodeJS.Timeout | undefined;
  private isStopped = false;

  /**
   * `grantedAt`: when the acquire that set the lease was sent (never later than the server set it).
   * `renew` runs every ttl/3 and reschedules itself (schedule()); `expired` says why the lease ran
   * out; `onStop` lets go of whatever else the holder keeps open for renewing.
   */
  constructor(
    ttlMs: number,
    grantedAt: number,
    private readonly renew: () => void,
    private readonly expired: string,
    private readonly onStop: () => void = () => undefined,
  ) {
    this.everyMs = Math.max(1, Math.floor(ttlMs / 3));
    this.validUntil(grantedAt + ttlMs);
    this.schedule();
  }

  get lost(): AbortSignal {
    return this.controller.signal;
  }

  get stopped(): boolean {
    return this.isStopped;
  }

  stop(): void {
    this.isStopped = true;
    clearTimeout(this.renewTimer);
    clearTimeout(this.expiryTimer);
    this.onStop();
  }

  lose(why: string): void {
    if (this.isStopped) return;
    this.stop();
    this.controller.abort(why);
  }

  /** The lease holds until `at` (a renewal's send time plus its TTL); lost then, unless renewed again. */
  validUntil(at: number): void {
    clearTimeout(this.expiryTimer);
    this.expiryTimer = setTimeout(() => this.lose(this.expired), Math.max(0, at - Date.now()));
    this.expiryTimer.unref();
  }

  /** The next renewal, ttl/3 from now. */
  schedule(): void {
    this.renewTimer = setTimeout(this.renew, this.everyMs);
    // A pending renewal must not keep a shutting-down process alive.
    this.renewTimer.unref();
  }
}
