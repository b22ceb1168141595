import { LockNotHeldError } from '../errors.js';
import type { Lease, LockOptions } from '../lock.js';
import { currentOwner } from '../owner.js';
import { ZkWatchLock } from './watch.js';

interface Holding {
  /** Open acquires by this owner; the node is deleted when it drops to zero. */
  count: number;
  lease: Promise<Lease>;
}

/**
 * zk-reentrant: zk-watch, plus a count per (resource, owner) kept in this process, where the
 * owner is the request's async context (Java keeps it in a ThreadLocal). A nested acquire by the
 * same request only counts; ZooKeeper sees one node per request.
 */
export class ZkReentrantLock extends ZkWatchLock {
  private readonly holdings = new Map<string, Holding>();

  override async acquire(resource: string, opts: LockOptions): Promise<Lease> {
    const key = `${resource}\u0000${currentOwner()}`;
    let held = this.holdings.get(key);
    if (!held) {
      held = { count: 0, lease: super.acquire(resource, opts) };
      this.holdings.set(key, held);
    }
    // Counted before waiting, so a release by the same owner meanwhile cannot drop it to zero and
    // delete the node this acquire is about to share.
    held.count++;
    let lease: Lease;
    try {
      lease = await held.lease;
    } catch (err) {
      if (--held.count === 0 && this.holdings.get(key) === held) this.holdings.delete(key);
      throw err;
    }
    let released = false;
    return {
      lost: lease.lost,
      release: async () => {
        if (released) throw new LockNotHeldError(resource);
        released = true;
        if (--held.count > 0) return;
        this.holdings.delete(key);
        await lease.release();
      },
    };
  }
}
