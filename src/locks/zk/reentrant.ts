import { HoldCounter } from '../holds.js';
import { leaseOf, ownerOf, type AcquireOptions, type Lease } from '../lock.js';
import { ZkWatchLock } from './watch.js';

/**
 * zk-reentrant: zk-watch, plus a count of holds per (resource, owner) in this process (Java keeps
 * it per thread; here the owner is the one named in the options, one token per request). A nested
 * acquire by the same owner only counts; ZooKeeper sees one node per owner.
 */
export class ZkReentrantLock extends ZkWatchLock {
  /** Each key's first hold is the node's lease, shared (as a promise, while it is still being queued for). */
  private readonly holds = new HoldCounter<Promise<Lease>>();

  override async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const key = { resource, owner: ownerOf(opts) };
    // Counted before waiting, so a release by the same owner meanwhile cannot drop it to zero and
    // delete the node this acquire is about to share.
    const shared = this.holds.enter(key, () => super.acquire(resource, opts));
    let node: Lease;
    try {
      node = await shared;
    } catch (err) {
      this.holds.leave(key, shared);
      throw err;
    }
    return leaseOf(
      resource,
      node.lost,
      async () => {
        if (this.holds.leave(key, shared) === 0) await node.release();
      },
      node.fencingToken,
    );
  }
}
