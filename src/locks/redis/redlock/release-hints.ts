// RedLock release hints: a holder publishes its release on every master, so every process's waiter
// tries again then instead of on a timer. Only a wake-up: safety never depends on it.
import type { Redis } from 'ioredis';

/** Where a RedLock holder announces, on each master, that it gave `resource` back. */
export const redlockReleaseChannel = (resource: string): string => `redlock-released:${resource}`;

export interface ReleaseHint {
  /** Resolves true on the next release announced for the resource, false after `ms`. */
  within(ms: number): Promise<boolean>;
  /** Stops listening; a `within` still running resolves false at once. */
  cancel(): void;
}

/** Copies of one announcement to remember per channel (one arrives from each master). */
const RECENT_PER_CHANNEL = 16;

/**
 * Release hints for RedLock waiters: the holder publishes its lock value on every master when it
 * releases, and each process listens on every master, so a waiter tries again when the lock is
 * free instead of on a timer. A hint is only a wake-up: safety never depends on it (the next
 * attempt still needs its quorum), and a missed hint costs a timer's wait, nothing more.
 *
 * One announcement arrives once per master that is up; only the first copy wakes anyone.
 */
export class RedlockReleaseHints {
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly recent = new Map<string, string[]>();
  private readonly channels = new Set<string>();

  /**
   * @param publishers the masters' command connections (the ones the lock uses)
   * @param subscribers one subscriber connection per master, in subscriber mode from now on
   */
  constructor(
    private readonly publishers: readonly Redis[],
    private readonly subscribers: readonly Redis[],
  ) {
    for (const s of subscribers) {
      s.on('message', (channel: string, value: string) => this.onMessage(channel, value));
      // A master that was down at the first subscribe, or restarted since, is subscribed when it
      // comes back (ioredis only resubscribes channels it had subscribed on that connection).
      s.on('ready', () => {
        if (this.channels.size > 0) s.subscribe(...this.channels).catch(() => undefined);
      });
    }
  }

  /** Listens for `resource`'s releases on every master that is up (once per resource). */
  watch(resource: string): void {
    const channel = redlockReleaseChannel(resource);
    if (this.channels.has(channel)) return;
    this.channels.add(channel);
    for (const s of this.subscribers) if (s.status === 'ready') s.subscribe(channel).catch(() => undefined);
  }

  /** Registers for the next release now, before the caller's attempt, so a release during it is not missed. */
  nextRelease(resource: string): ReleaseHint {
    const channel = redlockReleaseChannel(resource);
    let settle!: (hinted: boolean) => void;
    const woken = new Promise<boolean>((resolve) => (settle = resolve));
    const wake = () => settle(true);
    const set = this.waiters.get(channel) ?? new Set<() => void>();
    this.waiters.set(channel, set);
    set.add(wake);
    const cancel = () => {
      set.delete(wake);
      // A `within` still running ends now (not hinted), and clears its timer.
      settle(false);
    };
    return {
      cancel,
      within: async (ms) => {
        let timer: NodeJS.Timeout | undefined;
        const hinted = await Promise.race([woken, new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
        clearTimeout(timer);
        cancel();
        return hinted;
      },
    };
  }

  /** Announces on every master that is up that the lock with `value` was given back; never throws. */
  announce(resource: string, value: string): void {
    const channel = redlockReleaseChannel(resource);
    for (const p of this.publishers) if (p.status === 'ready') p.publish(channel, value).catch(() => undefined);
  }

  private onMessage(channel: string, value: string): void {
    const seen = this.recent.get(channel) ?? [];
    if (seen.includes(value)) return;
    seen.push(value);
    if (seen.length > RECENT_PER_CHANNEL) seen.shift();
    this.recent.set(channel, seen);
    const set = this.waiters.get(channel);
    if (!set || set.size === 0) return;
    const wakes = [...set];
    set.clear();
    for (const wake of wakes) wake();
  }
}
