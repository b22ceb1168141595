// What the sequential recipes share: join the queue with an ephemeral-sequential child, wait for
// your turn (each recipe waits its own way), hold while yours is the smallest, leave by deleting it.
import { randomUUID } from 'node:crypto';
import { Exception } from 'node-zookeeper-client';
import { DependencyDownError } from '../../dependency.js';
import { LockLostError, LockNotHeldError, LockTimeoutError } from '../errors.js';
import { leaseOf, ownerOf, type AcquireOptions, type Lease, type Lock } from '../lock.js';
import { remaining } from '../../time.js';
import { ZkDeadlineError, czxidOf, zkCode, type ZkSession } from './session.js';

/**
 * Curator's protected mode: every queue node is named `_c_<attempt id>-lock-<sequence>`. A create
 * whose reply is lost may still have been applied; the attempt id lets its owner find that node
 * after reconnecting (in the same session, where it would otherwise live on) and delete it.
 */
const PROTECTED = '_c_';
const PREFIX = 'lock-';
const SEQUENCE = /lock-(\d{10})$/;

/** Where a resource's queue lives; shared by every queue recipe, so they exclude each other. */
export function queueDir(session: ZkSession, resource: string): string {
  return `${session.root}/queue/${encodeURIComponent(resource)}`;
}

/** The queue's children in arrival order: by their sequence suffix (zero-padded, so text order is numeric). */
export function inQueueOrder(children: string[]): string[] {
  const sequence = (c: string) => SEQUENCE.exec(c)?.[1] ?? '';
  return children.filter((c) => SEQUENCE.test(c)).sort((a, b) => sequence(a).localeCompare(sequence(b)));
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
  readonly fencing = 'zookeeper';

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
    return leaseOf(
      resource,
      lost,
      async () => {
        try {
          if (!(await this.session.remove(path, Date.now() + 5_000))) throw new LockNotHeldError(resource);
        } catch (err) {
          if (err instanceof DependencyDownError) {
            // Disconnected: queue the delete, so a session that survives does not keep the node forever.
            void this.session.removeQuietly(path);
            // The hold was already known lost (the session dropped during the work): say so, as the leased locks do.
            if (lost.aborted) throw new LockNotHeldError(resource);
          }
          throw err;
        }
      },
      // Our node's czxid; read when asked (most holders never are). A node that is gone was ours only.
      async () => {
        const stat = await this.session.exists(path, Date.now() + 5_000);
        if (!stat) throw new LockLostError(resource, `queue node ${path} is gone (its session ended)`);
        return czxidOf(stat);
      },
    );
  }

  /** Lists the queue (counted), so recipes compare against the current children. */
  protected async listQueue(turn: Turn): Promise<string[]> {
    this.stats.childListings++;
    return inQueueOrder(await this.session.getChildren(turn.dir, turn.deadline));
  }

  private async enqueue(dir: string, owner: string, deadline: number): Promise<string> {
    const attempt = `${PROTECTED}${randomUUID()}-`;
    const create = () => this.session.create(`${dir}/${attempt}${PREFIX}`, owner, 'sequential', deadline);
    try {
      try {
        return await create();
      } catch (err) {
        if (zkCode(err) !== Exception.NO_NODE) throw err;
        // First use of this resource: its persistent queue node does not exist yet.
        await this.session.mkdirp(dir, deadline);
        return await create();
      }
    } catch (err) {
      // No answer: the node may exist anyway. Find it by its attempt id once reconnected, and delete it.
      if (err instanceof DependencyDownError || err instanceof ZkDeadlineError) {
        this.session.afterReconnect(async () => {
          const orphans = (await this.session.getChildren(dir, Date.now() + 5_000)).filter((c) => c.startsWith(attempt));
          for (const orphan of orphans) await this.session.remove(`${dir}/${orphan}`, Date.now() + 5_000);
        });
      }
      throw err;
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
