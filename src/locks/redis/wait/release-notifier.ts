// One pub/sub subscriber per process for the locks' release channels, fanned out to local waiters:
// a message wakes one of them, all of them, or only the one it names (the fair lock's next).
/** What the notifier uses of its subscriber connection (an ioredis client in subscriber mode). */
export interface ReleaseSubscriber {
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  subscribe(channel: string): Promise<unknown>;
}

export interface ReleaseWait {
  /** Resolves on the next message for the channel that wakes this waiter, or after `ms`, whichever is first. */
  within(ms: number): Promise<void>;
  /** Leaves the line; a `within` still running resolves at once. */
  cancel(): void;
}

/**
 * Whom a message wakes among this process's waiters of its channel:
 * - 'one' (the default): the first in line. A lock's release frees one holder, so waking every
 *   local waiter would only make them collide (Redisson's semaphore);
 * - 'all': every one, for a change that lets many through at once (a writer leaving a read-write
 *   lock, a latch opening);
 * - { addressee }: only the waiter whose token the message carries (the fair lock's next in line).
 */
export type Wakes = 'one' | 'all' | { addressee: string };

interface Waiter {
  wakes: Wakes;
  wake: () => void;
}

/**
 * One subscriber connection per process for the locks' release channels, fanned out in-process.
 * Every instance receives each message, so across instances one 'one' waiter per instance wakes.
 */
export class ReleaseNotifier {
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly subscriptions = new Map<string, Promise<unknown>>();

  constructor(private readonly subscriber: ReleaseSubscriber) {
    subscriber.on('message', (channel: string, message: string) => this.deliver(channel, message));
  }

  /** Subscribes once per channel; a failed subscription is retried by the next caller. */
  async subscribe(channel: string): Promise<void> {
    let pending = this.subscriptions.get(channel);
    if (!pending) {
      pending = this.subscriber.subscribe(channel);
      this.subscriptions.set(channel, pending);
      pending.catch(() => this.subscriptions.delete(channel));
    }
    await pending;
  }

  /** Registers a waiter now, before the caller's next attempt, so a release in between is not missed. */
  nextRelease(channel: string, wakes: Wakes = 'one'): ReleaseWait {
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const queue = this.waiters.get(channel) ?? [];
    this.waiters.set(channel, queue);
    const waiter: Waiter = { wakes, wake };
    queue.push(waiter);
    const cancel = () => {
      const at = queue.indexOf(waiter);
      if (at >= 0) queue.splice(at, 1);
      if (queue.length === 0 && this.waiters.get(channel) === queue) this.waiters.delete(channel);
      // A `within` still running ends now, and clears its timer.
      wake();
    };
    return {
      cancel,
      within: async (ms) => {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([woken, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
        clearTimeout(timer);
        cancel();
      },
    };
  }

  private deliver(channel: string, message: string): void {
    const queue = this.waiters.get(channel);
    if (!queue) return;
    const first = queue.find((w) => w.wakes === 'one');
    // Woken waiters leave the line at once, so a second message in the same tick wakes the next one.
    const woken = queue.filter((w) => w === first || w.wakes === 'all' || (typeof w.wakes === 'object' && w.wakes.addressee === message));
    for (const w of woken) {
      queue.splice(queue.indexOf(w), 1);
      w.wake();
    }
    if (queue.length === 0) this.waiters.delete(channel);
  }
}
