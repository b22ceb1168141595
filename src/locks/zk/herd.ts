// zk-herd (course §3.4.2, flaw kept): every queued waiter watches the head node, so each release
// wakes the whole herd, which lists the queue again. zk-watch is the fix.
import { ZkWatchLock } from './watch.js';

/**
 * zk-herd (docs/course.md §3.4.2, the step before "watch only your predecessor"): queue with an
 * ephemeral-sequential child, and every waiter watches the one lock node, the head of the queue.
 * Kept flawed on purpose: each release wakes every waiter (the herd), all of them list the queue
 * again, and all but one go back to watching the new head. `stats.wakeUps` counts them.
 */
export class ZkHerdLock extends ZkWatchLock {
  /** The head of the queue, for every waiter (the client calls each waiter's own watcher on its deletion). */
  protected override watchedNode(queue: readonly string[]): string {
    return queue[0] as string;
  }
}
