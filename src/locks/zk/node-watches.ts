// One ZooKeeper watch per path and kind, however many in this process wait on it: every reader
// queued behind the same writer, every member waiting for the same barrier. The client keeps one
// listener per watch, and a crowd of them on one path would be a crowd of listeners.
import type { ZkSession } from './session.js';
import { waitFor } from './queue.js';

interface Pending {
  /** Resolves on the watch's notification. */
  next: Promise<void>;
  watcher: () => void;
}

export class NodeWatches {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly session: ZkSession,
    /** Told of every notification (the recipes count their wake-ups). */
    private readonly onNotify: () => void = () => undefined,
  ) {}

  /** Whether `path` exists now, and its next change: created, written or deleted. */
  async node(path: string, deadline: number): Promise<{ exists: boolean; next: Promise<void> }> {
    const watch = this.watchOf(`node\u0000${path}`);
    const stat = await this.session.exists(path, deadline, watch.watcher);
    return { exists: stat !== undefined, next: watch.next };
  }

  /** `path`'s children now, and the next change to them. */
  async children(path: string, deadline: number): Promise<{ children: string[]; next: Promise<void> }> {
    const watch = this.watchOf(`children\u0000${path}`);
    return { children: await this.session.getChildren(path, deadline, watch.watcher), next: watch.next };
  }

  /**
   * Waits until `path` (a node that is never created again, like a sequential one) is deleted:
   * true once it was, false at once if it no longer existed. Bounded by the deadline and by the
   * connection (see waitFor).
   */
  async untilDeleted(path: string, deadline: number): Promise<boolean> {
    const key = `data\u0000${path}`;
    const watch = this.watchOf(key);
    // getData, not exists: on a node already gone it sets no watch, where exists() would leave one for a creation that never comes
    if (!(await this.session.getDataAndStat(path, deadline, watch.watcher))) {
      this.pending.delete(key);
      return false;
    }
    await waitFor(watch.next, deadline, this.session.holdSignal);
    return true;
  }

  private watchOf(key: string): Pending {
    const existing = this.pending.get(key);
    if (existing) return existing;
    let wake = () => {};
    const next = new Promise<void>((resolve) => (wake = resolve));
    const watch: Pending = {
      next,
      // The same function for every waiter: the client registers it once per path.
      watcher: () => {
        if (this.pending.get(key) === watch) this.pending.delete(key);
        this.onNotify();
        wake();
      },
    };
    this.pending.set(key, watch);
    return watch;
  }
}
