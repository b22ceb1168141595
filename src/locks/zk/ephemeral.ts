// zk-ephemeral (course §3.3): everyone creates the same ephemeral node, losers retry after retryMs.
// An unfair spin lock; a crashed holder's node dies with its session.
import { Exception } from 'node-zookeeper-client';
import { DependencyDownError } from '../../dependency.js';
import { LockLostError, LockNotHeldError, LockTimeoutError } from '../errors.js';
import { leaseOf, ownerOf, type AcquireOptions, type Lease, type Lock } from '../lock.js';
import { pollUntilAcquired } from '../poll.js';
import { ZkDeadlineError, fencingTokenOf, zkCode, type ZkSession } from './session.js';

/**
 * zk-ephemeral: everyone tries to create the same ephemeral node; whoever succeeds holds the lock,
 * the others sleep retryMs and try again (a spin lock, unfair). The node dies with its session,
 * so a crashed holder cannot block the others past the session timeout.
 */
export class ZkEphemeralLock implements Lock {
  readonly fencing = 'zookeeper';
  readonly expiry = 'session';
  readonly lostAcquire = 'released by its owner';

  constructor(private readonly session: ZkSession) {}

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const deadline = Date.now() + opts.waitMs;
    const path = `${this.session.root}/ephemeral-${encodeURIComponent(resource)}`;
    // The node's data names the request that holds it: every request of this instance shares the session.
    const owner = ownerOf(opts);
    let lease: Lease | undefined;
    await pollUntilAcquired(resource, opts, async () => {
      const lost = this.session.holdSignal;
      try {
        await this.session.create(path, owner, 'ephemeral', deadline);
        lease = leaseOf(
          resource,
          lost,
          () => this.release(resource, path, owner, lost),
          () => this.token(resource, path, owner),
        );
        return true;
      } catch (err) {
        // A create that outlives its deadline on a live connection is removed by the session when its
        // answer arrives; owing an owner-checked delete here would take this owner's own hold (a
        // nested acquire of the same owner waits for itself until its deadline).
        if (err instanceof ZkDeadlineError) throw new LockTimeoutError(resource, opts.waitMs);
        // The connection dropped with the create unanswered: the node may exist anyway, as ours.
        // Remove it (owner-checked) once reconnected.
        if (err instanceof DependencyDownError) this.session.owe(() => this.removeIfOwned(path, owner));
        if (zkCode(err) === Exception.NODE_EXISTS) return false;
        throw err;
      }
    });
    return lease as Lease;
  }

  private async release(resource: string, path: string, owner: string, lost: AbortSignal): Promise<void> {
    try {
      if (!(await this.removeIfOwned(path, owner))) throw new LockNotHeldError(resource);
    } catch (err) {
      // Disconnected: if the session survives, the node would outlive the request and block everyone.
      if (err instanceof DependencyDownError) {
        this.session.owe(() => this.removeIfOwned(path, owner));
        // The hold was already known lost (the session dropped during the work): say so, as the leased locks do.
        if (lost.aborted) throw new LockNotHeldError(resource);
      }
      throw err;
    }
  }

  /** The node's token (its czxid, see fencingTokenOf), if it is still ours: the path is shared, and after a lost session it may be another's. */
  private async token(resource: string, path: string, owner: string): Promise<bigint> {
    const node = await this.session.getDataAndStat(path, Date.now() + 5_000);
    if (node?.data !== owner) throw new LockLostError(resource, `${path} is no longer this owner's node (its session ended)`);
    return fencingTokenOf(node.stat);
  }

  /**
   * Deletes the node only if its data is our owner token. Our node vanishes only with the session
   * that created it; if the session was replaced while we read, the path may already hold another
   * instance's node, so we leave it alone (ours died with the old session).
   */
  private async removeIfOwned(path: string, owner: string): Promise<boolean> {
    const deadline = Date.now() + 5_000;
    const session = this.sessionId();
    if ((await this.session.getData(path, deadline)) !== owner) return false;
    if (this.sessionId() !== session) return false;
    return this.session.remove(path, deadline);
  }

  private sessionId(): string {
    return this.session.credentials.id.toString('hex');
  }
}
