// What the sequential recipes share: join the queue with an ephemeral-sequential child, wait for
// your turn (each recipe waits its own way), hold while yours is the smallest, leave by deleting it.
import { Exception } from 'node-zookeeper-client';
import { DependencyDownError } from '../../dependency.js';
import { LockLostError, LockNotHeldError, LockTimeoutError } from '../errors.js';
import { leaseOf, ownerOf, type AcquireOptions, type Lease, type Lock } from '../lock.js';
import { remaining } from '../../time.js';
import { ZkDeadlineError, zkCode, type ZkSession } from './session.js';

const PREFIX = 'lock-';

/** Where a resource's queue lives; shared by every queue recipe, so they exclude each other. */
export function queueDir(session: ZkSession, resource: string): string {
  return `${session.root}/queue/${encodeURIComponent(resource)}`;
}

/** The queue's children in arrival order (the sequence suffix is zero-padded, so text order is numeric). */
export function inQueueOrder(children: string[]): string[] {
  return children.filter((c) => c.startsWith(PREFIX)).sort();
}

/** What a waiting recipe gets to decide its turn. */
export interface Turn {
  dir: string;
  /** This waiter's own child name (not the full path). */
  node: string;
  deadline: number;
  retryMs: number;
}

/** Counters that make the herd effect visible: how much work the waiters did. */
export interface QueueStats {
  /** getChildren calls (a poll, or a re-check after a wake-up). */
  childListings: number;
  /** Watch notifications delivered to waiters. */
  wakeUps: number;
}

export abstract class QueueLock implements Lock {
  readonly stats: QueueStats = { childListings: 0, wakeUps: 0 };

  constructor(protected readonly session: ZkSession) {}

  /** Resolves once `turn.node` is the smallest child; rejects with ZkDeadlineError when time runs out. */
  protected abstract waitTurn(turn: Turn): Promise<void>;

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const deadline = Date.now() + opts.waitMs;
    const dir = queueDir(this.session, resource);
    const path = await this.enqueue(dir, ownerOf(opts), deadline).catch((err: unknown) => {
      throw err instanceof ZkDeadlineError ? new LockTimeoutError(resource, opts.waitMs) : err;
    });
    const lost = this.session.holdSignal;
    try {
      await this.waitTurn({ dir, node: path.slice(dir.length + 1), deadline, retryMs: opts.retryMs });
      // The turn came, but the connection dropped meanwhile: the node may already be gone.
      if (lost.aborted) throw new DependencyDownError('zookeeper', new Error(String(lost.reason)));
    } catch (err) {
      // A waiter that gives up leaves the queue, so it never blocks the ones behind it.
      void this.session.removeQuietly(path);
      throw err instanceof ZkDeadlineError ? new LockTimeoutError(resource, opts.waitMs) : err;
    }
    return leaseOf(resource, lost, async () => {
      try {
        if (!(await this.session.remove(path, Date.now() + 5_000))) throw new LockNotHeldError(resource);
      } catch (err) {
        // Disconnected: queue the delete, so a session that survives does not keep the node forever.
        if (err instanceof DependencyDownError) void this.session.removeQuietly(path);
        throw err;
      }
    });
  }

  /** Lists the queue (counted), so recipes compare against the current children. */
  protected async listQueue(turn: Turn): Promise<string[]> {
    this.stats.childListings++;
    return inQueueOrder(await this.session.getChildren(turn.dir, turn.deadline));
  }

  private async enqueue(dir: string, owner: string, deadline: number): Promise<string> {
    const create = () => this.session.create(`${dir}/${PREFIX}`, owner, 'sequential', deadline);
    try {
      return await create();
    } catch (err) {
      if (zkCode(err) !== Exception.NO_NODE) throw err;
      // First use of this resource: its persistent queue node does not exist yet.
      await this.session.mkdirp(dir, deadline);
      return await create();
    }
  }
}

/** Our own node left the queue while we waited (the session expired, or a reset removed it). */
export function leftQueue(turn: Turn): LockLostError {
  return new LockLostError(turn.dir, `queue node ${turn.node} vanished while waiting`);
}

/**
 * Waits for `event`, bounded by the deadline (ZkDeadlineError) and by the connection: a waiter whose
 * connection drops stops with a 503 instead of waiting for a notification that may never come.
 */
export function waitFor(event: Promise<void>, deadline: number, connection: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onDown = () => finish(() => reject(new DependencyDownError('zookeeper', new Error(String(connection.reason)))));
    const timer = setTimeout(() => finish(() => reject(new ZkDeadlineError())), remaining(deadline));
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      connection.removeEventListener('abort', onDown);
      settle();
    };
    if (connection.aborted) return onDown();
    connection.addEventListener('abort', onDown, { once: true });
    void event.then(() => finish(resolve));
  });
}
