// Curator's SharedCount (course §3.7.7): one count shared through one node, set by versioned
// compare-and-set; listeners hear of every newer value through a re-armed watch.
import { CounterNode, type VersionedValue } from './counter-node.js';
import type { ZkSession } from './session.js';

export type SharedCountListener = (count: VersionedValue) => void;

/**
 * Curator's SharedCount: a count every instance shares through one node. trySet is the versioned
 * compare-and-set (it fails when anyone wrote since `previous` was read); set writes regardless.
 * Listeners hear of every newer value this instance sees: a watch on the node, re-armed on each
 * notification (as Curator's SharedValue does), plus this instance's own reads and writes.
 */
export class ZkSharedCount {
  private readonly node: CounterNode;
  private readonly listeners = new Set<SharedCountListener>();
  private last: VersionedValue | undefined;
  private closed = false;

  constructor(
    session: ZkSession,
    path: string,
    seed: number,
    /** How long a background re-read after a notification may take. */
    private readonly rereadMs = session.timeoutMs,
  ) {
    this.node = new CounterNode(session, path, seed);
  }

  /** Adds a listener; the function returned removes it. */
  addListener(listener: SharedCountListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The count now, read from ZooKeeper (and watched from then on). */
  async read(deadline: number): Promise<VersionedValue> {
    return this.saw(await this.node.read(deadline, this.onChange));
  }

  /** Sets `next` only if nobody wrote since `previous` was read: false, and nothing written, otherwise. */
  async trySet(previous: VersionedValue, next: number): Promise<boolean> {
    const written = await this.node.trySet(previous, next);
    if (written) this.saw(written);
    return written !== undefined;
  }

  async set(next: number): Promise<VersionedValue> {
    return this.saw(await this.node.set(next));
  }

  /** Stops re-arming the watch; listeners hear nothing more. */
  close(): void {
    this.closed = true;
    this.listeners.clear();
  }

  /**
   * One function for every read, so the client keeps a single watch on the node. It reads without
   * creating: a count deleted by a reset stays deleted until someone uses it.
   */
  private readonly onChange = (): void => {
    if (this.closed) return;
    void this.node
      .peek(Date.now() + this.rereadMs, this.onChange)
      .then((count) => count && this.saw(count))
      .catch(() => undefined);
  };

  private saw(count: VersionedValue): VersionedValue {
    if (this.last === undefined || count.mzxid > this.last.mzxid) {
      this.last = count;
      for (const listener of this.listeners) listener(count);
    }
    return count;
  }
}
