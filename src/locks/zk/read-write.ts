// Curator's InterProcessReadWriteLock: readers and writers queue in one directory as
// ephemeral-sequential __READ__ and __WRIT__ nodes. Both locks are reentrant per owner.
import { LockLostError } from '../errors.js';
import type { AcquireOptions, Lock } from '../lock.js';
import { NodeWatches } from './node-watches.js';
import { OwnerReentrant } from './owner-reentrant.js';
import { QueueLock, leftQueue, sequenceOf, type QueueLease, type Turn } from './queue.js';
import type { ZkSession } from './session.js';
import { ZkWatchLock } from './watch.js';

const READ = '__READ__';
const WRITE = '__WRIT__';

/** Read nodes, a downgrade's included; any other node in the queue (a write, a plain mutex's) excludes readers. */
const isRead = (node: string): boolean => node.includes(READ);

/** A read node that takes its write node's place: `…__READ__at<write's sequence>-<own sequence>`. */
const DOWNGRADE = new RegExp(`${READ}at(\\d{10})-\\d{10}$`);

/** Writers wait, as zk-watch does, for every node ahead of theirs, readers included. */
class WriteQueue extends ZkWatchLock {
  protected override nodeName(): string {
    return WRITE;
  }
}

/**
 * Readers wait only for the writers ahead of them: each watches the first writer ahead (shared
 * by every reader behind it) and re-lists once it is gone.
 */
class ReadQueue extends QueueLock {
  private readonly watches = new NodeWatches(this.session, () => this.stats.wakeUps++);

  constructor(
    session: ZkSession,
    /** The write lease `owner` holds on `resource` here, if any: its read is then a downgrade. */
    private readonly writeHeld: (resource: string, owner: string) => QueueLease | undefined,
  ) {
    super(session);
  }

  /**
   * A write holder's read is granted at once, and takes its write node's place in the queue, so
   * the writers queued behind that write stay behind the read once the write is released (Curator
   * grants it at once too, but at the end of the queue, which let such a writer in: CURATOR-621).
   */
  protected override nodeName(resource: string, owner: string): string {
    // A write lost with its session (its node gone, another writer perhaps in) is no write to
    // downgrade: that read queues as any other.
    const write = this.writeHeld(resource, owner);
    return write && !write.lost.aborted ? `${READ}at${sequenceOf(write.path)}-` : READ;
  }

  protected async waitTurn(turn: Turn): Promise<void> {
    const downgrade = DOWNGRADE.exec(turn.node)?.[1];
    for (;;) {
      const queue = await this.listQueue(turn);
      const mine = queue.indexOf(turn.node);
      if (mine < 0) throw leftQueue(turn);
      if (downgrade !== undefined) {
        // Granted at once only while the write it downgrades is still queued (it holds the lock).
        if (queue.some((node) => !isRead(node) && sequenceOf(node) === downgrade)) return;
        throw new LockLostError(turn.dir, `the write lock ${turn.node} would downgrade is gone`);
      }
      const writer = queue.slice(0, mine).find((node) => !isRead(node));
      if (writer === undefined) return;
      await this.watches.untilDeleted(`${turn.dir}/${writer}`, turn.deadline);
    }
  }
}

/**
 * The pair of locks over one queue per resource. A writer may downgrade: acquire the read lock
 * while holding the write lock, then release the write lock. A reader may not upgrade: its write
 * queues behind its own read and waits for itself until waitMs (as in Curator and Java).
 */
export class ZkReadWriteLock {
  readonly writeLock: Lock;
  readonly readLock: Lock;

  constructor(session: ZkSession) {
    const write = new OwnerReentrant(leasesNamingNodes(new WriteQueue(session)), 'write');
    this.writeLock = write;
    this.readLock = new OwnerReentrant(leasesNamingNodes(new ReadQueue(session, (resource, owner) => write.heldBy(resource, owner))), 'read');
  }
}

/** A queue lock whose leases name their nodes (a downgrade needs its write's). */
function leasesNamingNodes(queue: QueueLock): { fencing: QueueLock['fencing']; acquire(resource: string, opts: AcquireOptions): Promise<QueueLease> } {
  return { fencing: queue.fencing, acquire: (resource, opts) => queue.acquireNode(resource, opts) };
}
