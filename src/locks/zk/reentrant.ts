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
    let holding = this.holdings.get(key);
    if (!holding) {
      const created: Holding = { count: 0, lease: super.acquire(resource, opts) };
      this.holdings.set(key, created);
      holding = created;
      await created.lease.catch((err: unknown) => {
        if (this.holdings.get(key) === created) this.holdings.delete(key);
        throw err;
      });
    }
    const lease = await holding.lease;
    const held = holding;
    held.count++;
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

  /** Owners currently holding, for tests: a leak here would make later requests re-enter wrongly. */
  get holders(): number {
    return this.holdings.size;
  }
}
