// Curator's InterProcessSemaphoreV2 and, over it with one lease, InterProcessSemaphoreMutex.
// Layout per resource: <root>/semaphore/<resource>/locks, a mutex's queue (the gate), and
// <root>/semaphore/<resource>/leases, one ephemeral-sequential node per lease held or wanted.
import { LockTimeoutError } from '../errors.js';
import type { AcquireOptions, Lease, Lock } from '../lock.js';
import { remaining } from '../../time.js';
import { NodeWatches } from './node-watches.js';
import { QueueLock, leftQueue, waitFor, type Turn } from './queue.js';
import type { ZkSession } from './session.js';
import { ZkWatchLock } from './watch.js';

export function semaphoreDir(session: ZkSession, resource: string): string {
  return `${session.root}/semaphore/${encodeURIComponent(resource)}`;
}

/** Curator's `locks` mutex: one acquirer at a time (cluster-wide) takes a lease node and waits for room. */
class Gate extends ZkWatchLock {
  protected override dirOf(resource: string): string {
    return `${semaphoreDir(this.session, resource)}/locks`;
  }
}

/** The gate's holder waits, watching the lease nodes, until its own is among the first maxLeases. */
class Leases extends QueueLock {
  private readonly watches = new NodeWatches(this.session, () => this.stats.wakeUps++);

  constructor(
    session: ZkSession,
    private readonly maxLeases: number,
  ) {
    super(session);
  }

  protected override dirOf(resource: string): string {
    return `${semaphoreDir(this.session, resource)}/leases`;
  }

  protected override nodeName(): string {
    return 'lease-';
  }

  protected async waitTurn(turn: Turn): Promise<void> {
    for (;;) {
      this.stats.childListings++;
      const { children, next } = await this.watches.children(turn.dir, turn.deadline);
      if (!children.includes(turn.node)) throw leftQueue(turn);
      // Curator counts the nodes, not our place among them: the gate lets one waiter in at a time.
      if (children.length <= this.maxLeases) return;
      await waitFor(next, turn.deadline, this.session.holdSignal);
    }
  }
}

/**
 * maxLeases leases on each resource, cluster-wide. A lease is an ephemeral node: returning it
 * deletes it, and a holder that crashes returns it when its session expires. Every user of a
 * resource must agree on maxLeases (Curator's rule too): the count is checked, not stored.
 * Not reentrant: an owner asking again takes a second lease.
 */
export class ZkSemaphore implements Lock {
  readonly fencing = 'zookeeper';
  private readonly gate: Gate;
  private readonly leases: Leases;

  constructor(
    session: ZkSession,
    readonly maxLeases: number,
  ) {
    if (!Number.isInteger(maxLeases) || maxLeases < 1) throw new RangeError(`maxLeases must be a whole number ≥ 1, not ${maxLeases}`);
    this.gate = new Gate(session);
    this.leases = new Leases(session, maxLeases);
  }

  /**
   * One lease, within opts.waitMs. Its fencing token comes from its node's czxid: lease nodes are created
   * one at a time behind the gate, and, with one lease, granted in that order.
   */
  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const deadline = Date.now() + opts.waitMs;
    const gate = await this.gate.acquire(resource, opts);
    try {
      return await this.leases.acquire(resource, { ...opts, waitMs: remaining(deadline) });
    } catch (err) {
      throw err instanceof LockTimeoutError ? new LockTimeoutError(resource, opts.waitMs) : err;
    } finally {
      // Not awaited: the lease is granted, and the next acquirer's wait starts with the gate's deletion.
      // A gate that cannot be released now is deleted by the session later (see QueueLock's lease).
      void gate.release().catch(() => undefined);
    }
  }
}

/**
 * Curator's InterProcessSemaphoreMutex: the semaphore with one lease. Unlike the queue mutexes it is
 * not reentrant, even for the same owner: a nested acquire waits for the outer one until waitMs.
 */
export class ZkSemaphoreMutex extends ZkSemaphore {
  constructor(session: ZkSession) {
    super(session, 1);
  }
}
