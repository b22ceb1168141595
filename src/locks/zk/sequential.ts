// zk-sequential (course §3.4.1): queue as an ephemeral-sequential child, then poll the child list
// every retryMs until ours is the smallest. Fair and crash-safe, but every waiter keeps asking.
import { remaining, sleep } from '../../time.js';
import { QueueLock, leftQueue, type Turn } from './queue.js';
import { ZkDeadlineError } from './session.js';

/**
 * zk-sequential: queue with an ephemeral-sequential child, then poll the whole child list every
 * retryMs until ours is the smallest. Fair and crash-safe, but every waiter keeps asking ZooKeeper
 * while it waits: the load grows with waiters × hold time / retryMs.
 */
export class ZkSequentialLock extends QueueLock {
  protected async waitTurn(turn: Turn): Promise<void> {
    for (;;) {
      const queue = await this.listQueue(turn);
      if (queue[0] === turn.node) return;
      if (!queue.includes(turn.node)) throw leftQueue(turn);
      if (remaining(turn.deadline) === 0) throw new ZkDeadlineError();
      await sleep(Math.min(turn.retryMs, remaining(turn.deadline)));
    }
  }
}
