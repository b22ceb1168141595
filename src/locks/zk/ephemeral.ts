import { Exception } from 'node-zookeeper-client';
import { DependencyDownError } from '../../dependency.js';
import { LockNotHeldError, LockTimeoutError } from '../errors.js';
import { leaseOf, ownerOf, type AcquireOptions, type Lease, type Lock } from '../lock.js';
import { pollUntilAcquired } from '../poll.js';
import { ZkDeadlineError, zkCode, type ZkSession } from './session.js';

/**
 * zk-ephemeral: everyone tries to create the same ephemeral node; whoever succeeds holds the lock,
 * the others sleep retryMs and try again (a spin lock, unfair). The node dies with its session,
 * so a crashed holder cannot block the others past the session timeout.
 */
export class ZkEphemeralLock implements Lock {
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
        lease = leaseOf(resource, lost, () => this.release(resource, path, owner));
        return true;
      } catch (err) {
        if (err instanceof ZkDeadlineError) throw new LockTimeoutError(resource, opts.waitMs);
        if (zkCode(err) === Exception.NODE_EXISTS) return false;
        throw err;
      }
    });
    return lease as Lease;
  }

  private async release(resource: string, path: string, owner: string): Promise<void> {
    try {
      if (!(await this.removeIfOwned(path, owner))) throw new LockNotHeldError(resource);
    } catch (err) {
      // Disconnected: if the session survives, the node would outlive the request and block everyone.
      if (err instanceof DependencyDownError) {
        void this.session.waitConnected(this.session.timeoutMs).then((up) => up && this.removeIfOwned(path, owner)).catch(() => undefined);
      }
      throw err;
    }
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
