import type { Redis } from 'ioredis';

export interface ReleaseWait {
  /** Resolves on the next release message for the channel, or after `ms`, whichever is first. */
  within(ms: number): Promise<void>;
  cancel(): void;
}

/**
 * One subscriber connection per process for the locks' release channels, fanned out in-process.
 * Each message wakes one waiter of that channel in this process (Redisson's semaphore): one
 * release frees one holder, so waking every local waiter would only make them collide. Every
 * instance receives the message, so across instances one waiter per instance wakes.
 */
export class ReleaseNotifier {
  private readonly waiters = new Map<string, Array<() => void>>();
  private readonly subscriptions = new Map<string, Promise<unknown>>();

  constructor(private readonly subscriber: Redis) {
    subscriber.on('message', (channel: string) => this.waiters.get(channel)?.shift()?.());
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
  nextRelease(channel: string): ReleaseWait {
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const queue = this.waiters.get(channel) ?? [];
    this.waiters.set(channel, queue);
    queue.push(wake);
    const cancel = () => {
      const at = queue.indexOf(wake);
      if (at >= 0) queue.splice(at, 1);
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
}
