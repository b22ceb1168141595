// zk-watch (course §3.4.2): queue as an ephemeral-sequential child and watch only the node just
// before ours, so a release wakes exactly one waiter: no herd.
import { QueueLock, leftQueue, parkedUntil, type Turn } from './queue.js';

/**
 * zk-watch: queue with an ephemeral-sequential child and watch only the child just before ours.
 * A release (or a crash, or a waiter giving up) deletes exactly one node and so wakes exactly one
 * waiter: no herd. The woken waiter re-lists once, because its predecessor may have been a waiter
 * that left rather than the holder.
 */
export class ZkWatchLock extends QueueLock {
  protected async waitTurn(turn: Turn): Promise<void> {
    for (;;) {
      const queue = await this.listQueue(turn);
      const mine = queue.indexOf(turn.node);
      if (mine === 0) return;
      if (mine < 0) throw leftQueue(turn);
      let wake = () => {};
      const deleted = new Promise<void>((resolve) => (wake = resolve));
      const watcher = () => {
        this.stats.wakeUps++;
        wake();
      };
      // A watch on the one node, not getChildren(): only its deletion notifies us. getData, not exists
      // (as Curator does): on a node already gone exists() would leave a watch for a creation that
      // never comes, one per such race, kept by the server for the whole session (a soak saw them grow).
      const present = await this.session.getDataAndStat(`${turn.dir}/${this.watchedNode(queue, mine)}`, turn.deadline, watcher);
      if (!present) continue; // it left between the listing and the watch
      await parkedUntil(this.stats, deleted, turn.deadline, this.session.holdSignal);
    }
  }

  /** The node this waiter watches: the child just before its own. */
  protected watchedNode(queue: readonly string[], mine: number): string {
    return queue[mine - 1] as string;
  }
}
