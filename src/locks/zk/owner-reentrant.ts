// Any lock made reentrant per owner, as Curator's InterProcessMutex is per thread: the first
// acquire takes the inner lease, nested ones only count, the last release gives it back.
import type { FenceSource } from '../../fencing.js';
import { HoldCounter, type HoldMode } from '../holds.js';
import { leaseOf, ownerOf, type AcquireOptions, type Lease, type Lock } from '../lock.js';

interface Hold<L> {
  lease: Promise<L>;
  /** Set once granted. */
  granted?: L;
}

/**
 * Any lock made reentrant per owner, as Curator's InterProcessMutex is per thread (its LockData):
 * the owner's first acquire takes the inner lease, nested ones only count, the last release gives
 * it back. `mode` keeps a read-write lock's read holds and write holds apart.
 */
export class OwnerReentrant<L extends Lease> implements Lock {
  readonly fencing?: FenceSource;
  private readonly holds = new HoldCounter<Hold<L>>();

  constructor(
    /** Its leases may say more than Lease (a queue lock's say which node they hold). */
    private readonly inner: Lock<L>,
    private readonly mode: HoldMode,
  ) {
    if (inner.fencing) this.fencing = inner.fencing;
  }

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const key = { resource, owner: ownerOf(opts), mode: this.mode };
    // Counted before waiting, so a release by the same owner meanwhile cannot drop it to zero.
    const hold = this.holds.enter(key, () => ({ lease: this.inner.acquire(resource, opts) }));
    let lease: L;
    try {
      lease = await hold.lease;
    } catch (err) {
      this.holds.leave(key, hold);
      throw err;
    }
    hold.granted = lease;
    return leaseOf(
      resource,
      lease.lost,
      async () => {
        if (this.holds.leave(key, hold) === 0) await lease.release();
      },
      lease.fencingToken,
    );
  }

  /** The lease `owner` holds on `resource` in this process, once granted (a downgrade asks). */
  heldBy(resource: string, owner: string): L | undefined {
    return this.holds.shared({ resource, owner, mode: this.mode })?.granted;
  }
}
