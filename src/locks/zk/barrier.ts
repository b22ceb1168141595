// Curator's DistributedBarrier and DistributedDoubleBarrier.
import { randomUUID } from 'node:crypto';
import { Exception } from 'node-zookeeper-client';
import { LockTimeoutError } from '../errors.js';
import { NodeWatches } from './node-watches.js';
import { waitFor } from './queue.js';
import { ZkDeadlineError, zkCode, type ZkSession } from './session.js';

/** A wait that ran out, said the way every other wait of the lab says it (503 lock_timeout). */
function timedOut(path: string, waitMs: number): (err: unknown) => never {
  return (err) => {
    throw err instanceof ZkDeadlineError ? new LockTimeoutError(path, waitMs) : err;
  };
}

/**
 * DistributedBarrier: one node. While it exists, waiters wait; removing it lets them all through.
 * set() is idempotent, as Curator's is.
 */
export class ZkBarrier {
  private readonly watches: NodeWatches;

  constructor(
    private readonly session: ZkSession,
    readonly path: string,
  ) {
    this.watches = new NodeWatches(session);
  }

  async set(deadline: number): Promise<void> {
    try {
      await this.session.create(this.path, '', 'persistent', deadline);
    } catch (err) {
      if (zkCode(err) === Exception.NODE_EXISTS) return;
      if (zkCode(err) !== Exception.NO_NODE) throw err;
      await this.session.mkdirp(this.path, deadline);
    }
  }

  async remove(deadline: number): Promise<void> {
    await this.session.remove(this.path, deadline);
  }

  /** Resolves once the barrier is gone; LockTimeoutError after waitMs. */
  async waitOn(waitMs: number): Promise<void> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const { exists, next } = await this.watches.node(this.path, deadline).catch(timedOut(this.path, waitMs));
      if (!exists) return;
      await waitFor(next, deadline, this.session.holdSignal).catch(timedOut(this.path, waitMs));
    }
  }
}

const READY = 'ready';

/** One member's place in a double barrier, from enter() to leave(). */
export interface BarrierMember {
  /** The member's ephemeral node. */
  readonly path: string;
}

/** How long a member that gives up waits for its node's delete before answering anyway (ZooKeeper down). */
const DROP_BOUND_MS = 2_000;

/**
 * DistributedDoubleBarrier: members meet at the start and at the end. Each member is an ephemeral
 * node under the barrier's path. enter() waits until `members` nodes are there (a threshold, not a
 * limit: more may enter), then creates `ready`, which lets every waiter in. leave() deletes the
 * member's node and waits until every member's node is gone; the last ones out delete `ready`.
 *
 * Unlike Curator, a member that gives up (its wait ran out, or it failed) deletes its node before
 * saying so: otherwise it would count as present in the next barrier on the same path.
 */
export class ZkDoubleBarrier {
  private readonly watches: NodeWatches;

  constructor(
    private readonly session: ZkSession,
    readonly path: string,
    readonly members: number,
  ) {
    this.watches = new NodeWatches(session);
  }

  /** Waits until `members` have entered; LockTimeoutError after waitMs, with this member gone again. */
  async enter(waitMs: number): Promise<BarrierMember> {
    const deadline = Date.now() + waitMs;
    const member = { path: `${this.path}/${randomUUID()}` };
    // Watched before joining, as Curator does: a barrier that opens meanwhile is not missed.
    const ready = await this.watches.node(`${this.path}/${READY}`, deadline).catch(timedOut(this.path, waitMs));
    try {
      await this.join(member, deadline);
      if (!ready.exists) await this.waitForOthers(ready.next, deadline);
      return member;
    } catch (err) {
      await this.drop(member);
      return timedOut(this.path, waitMs)(err);
    }
  }

  /**
   * Leaves, and waits until every member has (watching one that is still there at a time; Curator
   * watches the highest); LockTimeoutError after waitMs.
   */
  async leave(member: BarrierMember, waitMs: number): Promise<void> {
    const deadline = Date.now() + waitMs;
    try {
      await this.session.remove(member.path, deadline);
      for (;;) {
        const [someone] = (await this.session.getChildren(this.path, deadline)).filter((c) => c !== READY);
        if (someone === undefined) break;
        await this.watches.untilDeleted(`${this.path}/${someone}`, deadline);
      }
      await this.session.remove(`${this.path}/${READY}`, deadline);
    } catch (err) {
      await this.drop(member);
      timedOut(this.path, waitMs)(err);
    }
  }

  /**
   * Deletes a member that gives up, and waits for the delete to be applied: its answer must not go
   * out while its node could still count in the next barrier. ZooKeeper applies one session's
   * requests in order, so this also deletes a node whose create timed out but was still on its way.
   */
  private async drop(member: BarrierMember): Promise<void> {
    await this.session.remove(member.path, Date.now() + DROP_BOUND_MS).catch(() => this.session.removeQuietly(member.path));
  }

  private async join(member: BarrierMember, deadline: number): Promise<void> {
    try {
      await this.session.create(member.path, '', 'ephemeral', deadline);
    } catch (err) {
      if (zkCode(err) !== Exception.NO_NODE) throw err;
      await this.session.mkdirp(this.path, deadline);
      await this.session.create(member.path, '', 'ephemeral', deadline);
    }
  }

  /**
   * Until `ready` appears, or enough members are here to create it. Curator counts once and then
   * waits for `ready`; here a member also re-counts whenever one joins or leaves, so a count that
   * missed a join (a lagging follower's view) does not leave everyone waiting.
   */
  private async waitForOthers(readyCreated: Promise<void>, deadline: number): Promise<void> {
    let opened = false;
    void readyCreated.then(() => (opened = true));
    for (;;) {
      const { children, next } = await this.watches.children(this.path, deadline);
      if (opened || children.includes(READY)) return;
      if (children.length >= this.members) {
        await this.session.create(`${this.path}/${READY}`, '', 'persistent', deadline).catch((err: unknown) => {
          if (zkCode(err) !== Exception.NODE_EXISTS) throw err;
        });
        return;
      }
      await waitFor(Promise.race([readyCreated, next]), deadline, this.session.holdSignal);
      if (opened) return;
    }
  }
}
