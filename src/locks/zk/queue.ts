// What the sequential recipes share: join the queue with an ephemeral-sequential child, wait for
// your turn (each recipe waits its own way), hold while yours is the smallest, leave by deleting it.
import { randomUUID } from 'node:crypto';
import { Exception } from 'node-zookeeper-client';
import { DependencyDownError } from '../../dependency.js';
import { LockLostError, LockNotHeldError, LockTimeoutError } from '../errors.js';
import { leaseOf, ownerOf, type AcquireOptions, type Lease, type Lock } from '../lock.js';
import { remaining } from '../../time.js';
import { ZkDeadlineError, fencingTokenOf, zkCode, type ZkSession } from './session.js';

/**
 * Curator's protected mode: every queue node is named `_c_<attempt id>-<name><sequence>`, the name
 * `lock-` for the mutexes, `__READ__`/`__WRIT__` for the read-write lock, `lease-` for leases. A create
 * whose reply is lost may still have been applied; the attempt id lets its owner find that node
 * after reconnecting (in the same session, where it would otherwise live on) and delete it.
 */
const PROTECTED = '_c_';
const PREFIX = 'lock-';
/** The ten digits ZooKeeper appends to a sequential node; the name before them says which recipe made it. */
const SEQUENCE = /(\d{10})$/;
/**
 * A node that takes another's place in the queue names that place before its own sequence,
 * `…at<place>-<sequence>`: a write holder's read node takes its write node's place, so the writers
 * queued behind that write stay behind the read (Curator's CURATOR-621).
 */
const PLACE = /at(\d{10})-\d{10}$/;

/** Where a resource's queue lives; shared by every queue recipe, so they exclude each other. */
export function queueDir(session: ZkSession, resource: string): string {
  return `${session.root}/queue/${encodeURIComponent(resource)}`;
}

/** A queue node's own sequence number, as ZooKeeper appended it (zero-padded, so text order is numeric). */
export function sequenceOf(node: string): string {
  return SEQUENCE.exec(node)?.[1] ?? '';
}

/** The queue's children in arrival order: by the place they take (their own sequence, unless they name another's). */
export function inQueueOrder(children: string[]): string[] {
  const place = (c: string) => PLACE.exec(c)?.[1] ?? sequenceOf(c);
  return children.filter((c) => SEQUENCE.test(c)).sort((a, b) => place(a).localeCompare(place(b)) || sequenceOf(a).localeCompare(sequenceOf(b)));
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
  /** Waiters whose watch is set right now (zk-watch, zk-herd): a gauge, so a test can tell when all are parked. */
  parked: number;
}

export abstract class QueueLock implements Lock {
  readonly stats: QueueStats = { childListings: 0, wakeUps: 0, parked: 0 };
  readonly fencing = 'zookeeper';
  readonly expiry = 'session';
  readonly lostAcquire = 'released by its owner';

  constructor(protected readonly session: ZkSession) {}

  /** Resolves once `turn.node` is the smallest child; rejects with ZkDeadlineError when time runs out. */
  protected abstract waitTurn(turn: Turn): Promise<void>;

  acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    return this.acquireNode(resource, opts);
  }

  /** acquire, telling which node the lease holds. */
  async acquireNode(resource: string, opts: AcquireOptions): Promise<QueueLease> {
    const deadline = Date.now() + opts.waitMs;
    const dir = this.dirOf(resource);
    const path = await createProtected(this.session, dir, this.nodeName(resource, ownerOf(opts)), opts.owner, deadline).catch((err: unknown) => {
      throw err instanceof ZkDeadlineError ? new LockTimeoutError(resource, opts.waitMs) : err;
    });
    const lost = this.session.holdSignal;
    try {
      await this.waitTurn({ dir, node: path.slice(dir.length + 1), deadline, retryMs: opts.retryMs });
      // The turn came, but the connection dropped meanwhile: the node may already be gone.
      if (lost.aborted) throw new DependencyDownError('zookeeper', new Error(String(lost.reason)));
    } catch (err) {
      // A waiter that gives up leaves the queue, so it never blocks the ones behind it.
      this.session.removeQuietly(path);
      throw err instanceof ZkDeadlineError ? new LockTimeoutError(resource, opts.waitMs) : err;
    }
    return { ...nodeLease(this.session, resource, path, lost), path };
  }

  /** The queue's parent node; recipes with a layout of their own (a semaphore's gate) put it elsewhere. */
  protected dirOf(resource: string): string {
    return queueDir(this.session, resource);
  }

  /** The name of an acquire's node before its sequence: says which recipe queued it (a read, a write). */
  protected nodeName(_resource: string, _owner: string): string {
    return PREFIX;
  }

  /** Lists the queue (counted), so recipes compare against the current children. */
  protected async listQueue(turn: Turn): Promise<string[]> {
    this.stats.childListings++;
    return inQueueOrder(await this.session.getChildren(turn.dir, turn.deadline));
  }
}

/** Waits for a watch's `deleted` with the waiter counted in `stats.parked` meanwhile. */
export async function parkedUntil(stats: QueueStats, deleted: Promise<void>, deadline: number, connection: AbortSignal): Promise<void> {
  stats.parked++;
  try {
    await waitFor(deleted, deadline, connection);
  } finally {
    stats.parked--;
  }
}

/** A queue recipe's lease, with the path of the node it holds (a downgrade's read takes its place). */
export interface QueueLease extends Lease {
  readonly path: string;
}

/**
 * Creates an ephemeral-sequential node `<dir>/_c_<attempt id>-<name><sequence>` (creating `dir` on
 * first use) and returns its path. A create whose reply never came may have been applied: its node
 * is found by its attempt id once reconnected, and deleted.
 */
async function createProtected(session: ZkSession, dir: string, name: string, data: string, deadline: number): Promise<string> {
  const attempt = `${PROTECTED}${randomUUID()}-`;
  const create = () => session.create(`${dir}/${attempt}${name}`, data, 'sequential', deadline);
  try {
    try {
      return await create();
    } catch (err) {
      if (zkCode(err) !== Exception.NO_NODE) throw err;
      // First use of this resource: its persistent parent node does not exist yet.
      await session.mkdirp(dir, deadline);
      return await create();
    }
  } catch (err) {
    if (err instanceof DependencyDownError) {
      session.owe(async () => {
        const orphans = (await childrenIfAny(session, dir, Date.now() + 5_000)).filter((c) => c.startsWith(attempt));
        for (const orphan of orphans) await session.remove(`${dir}/${orphan}`, Date.now() + 5_000);
      });
    }
    throw err;
  }
}

/**
 * `dir`'s children, none when `dir` does not exist: a parent whose creation never landed (the first
 * use of a resource, its mkdirp cut short by the deadline or the connection) holds no node of ours.
 * Curator's protected mode ignores NoNode in the same search.
 */
export async function childrenIfAny(session: ZkSession, dir: string, deadline: number): Promise<string[]> {
  try {
    return await session.getChildren(dir, deadline);
  } catch (err) {
    if (zkCode(err) === Exception.NO_NODE) return [];
    throw err;
  }
}

/**
 * The lease on an ephemeral node held for `resource`: releasing deletes the node; its czxid makes the
 * fencing token (fencingTokenOf). `lost` is the session generation it was granted under.
 */
function nodeLease(session: ZkSession, resource: string, path: string, lost: AbortSignal): Lease {
  return leaseOf(
    resource,
    lost,
    async () => {
      try {
        if (!(await session.remove(path, Date.now() + 5_000))) throw new LockNotHeldError(resource);
      } catch (err) {
        if (err instanceof DependencyDownError) {
          // Disconnected: queue the delete, so a session that survives does not keep the node forever.
          session.removeQuietly(path);
          // The hold was already known lost (the session dropped during the work): say so, as the leased locks do.
          if (lost.aborted) throw new LockNotHeldError(resource);
        }
        throw err;
      }
    },
    // From our node's czxid; read when asked (most holders never are). A node that is gone was ours only.
    async () => {
      const stat = await session.exists(path, Date.now() + 5_000);
      if (!stat) throw new LockLostError(resource, `node ${path} is gone (its session ended)`);
      return fencingTokenOf(stat);
    },
  );
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
