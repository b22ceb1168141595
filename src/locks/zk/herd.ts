import { QueueLock, leftQueue, parkedUntil, type Turn } from './queue.js';

/**
 * zk-herd (docs/course.md §3.4.2, the step before "watch only your predecessor"): queue with an
 * ephemeral-sequential child, and every waiter watches the one lock node, the head of the queue.
 * Kept flawed on purpose: each release wakes every waiter (the herd), all of them list the queue
 * again, and all but one go back to watching the new head. `stats.wakeUps` counts them.
 */
export class ZkHerdLock extends QueueLock {
  protected async waitTurn(turn: Turn): Promise<void> {
    for (;;) {
      const queue = await this.listQueue(turn);
      const mine = queue.indexOf(turn.node);
      if (mine === 0) return;
      if (mine < 0) throw leftQueue(turn);
      let wake = () => {};
      const deleted = new Promise<void>((resolve) => (wake = resolve));
      // A watcher of its own per waiter: the client calls every one on the head's deletion.
      const watcher = () => {
        this.stats.wakeUps++;
        wake();
      };
      const stat = await this.session.exists(`${turn.dir}/${queue[0]}`, turn.deadline, watcher);
      if (!stat) continue; // the head left between the listing and the watch
      await parkedUntil(this.stats, deleted, turn.deadline, this.session.holdSignal);
    }
  }
}
