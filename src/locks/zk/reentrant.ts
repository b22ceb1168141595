// zk-reentrant (course §3.5, §3.7.1, Curator's InterProcessMutex): zk-watch with holds counted per
// owner in this process, so a nested acquire only counts and ZooKeeper sees one node.
import type { Lease, Lock } from '../lock.js';
import { OwnerReentrant } from './owner-reentrant.js';
import type { ZkSession } from './session.js';
import { ZkWatchLock } from './watch.js';

/**
 * zk-reentrant: zk-watch, plus a count of holds per (resource, owner) in this process (Java keeps
 * it per thread; here the owner is the one named in the options, one token per request). A nested
 * acquire by the same owner only counts; ZooKeeper sees one node per owner. `inner` is the zk-watch
 * it counts holds of (the strategy puts a process line in front of it).
 */
export class ZkReentrantLock extends OwnerReentrant<Lease> {
  /** zk-watch's: ZooKeeper sees one node per owner, which dies with the session. */
  readonly expiry = 'session';
  readonly lostAcquire = 'released by its owner';

  constructor(session: ZkSession, inner: Lock = new ZkWatchLock(session)) {
    super(inner, 'exclusive');
  }
}
