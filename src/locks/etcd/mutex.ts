// etcd's concurrency.Mutex (clientv3/concurrency/mutex.go), written here on etcd3's KV, lease and
// watch calls: every acquirer puts `<prefix>/<lease id>` under a lease of its own; the key with
// the lowest create revision holds the lock, and each waiter watches only the key created just
// before its own (no herd), as zk-watch does with sequential nodes.
import { CompareResult, CompareTarget, SortOrder, SortTarget, type Etcd3, type IKeyValue, type IRangeRequest } from 'etcd3';
import { DependencyDownError } from '../../dependency.js';
import { LockLostError, LockNotHeldError, LockTimeoutError } from '../errors.js';
import { leaseOf, ownerOf, type AcquireOptions, type Lease, type Lock } from '../lock.js';
import { ETCD_LOCK_ROOT, callBound, etcdCall, prefixRange } from './client.js';
import { EtcdLease } from './lease.js';
import { waitDelete } from './wait-delete.js';

/** Where a resource's queue of keys lives. */
export function mutexPrefix(resource: string): string {
  return `${ETCD_LOCK_ROOT}mutex/${encodeURIComponent(resource)}/`;
}

/** Our key, as the acquire put it: the key and its create revision, which is also the fencing token. */
interface MyKey {
  key: string;
  rev: bigint;
}

/**
 * etcd-lock: the recipe as etcd ships it since issue 11456. After the wait, it reads its own key
 * again: a waiter whose lease expired while it waited (its key deleted with the lease) finds its
 * key gone and is refused, instead of being told it holds a lock that no key stands for.
 */
export class EtcdMutexLock implements Lock {
  readonly fencing = 'etcd';
  readonly expiry = 'lease';
  readonly lostAcquire = 'released by its owner';

  constructor(protected readonly client: Etcd3) {}

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const owner = ownerOf(opts);
    const deadline = Date.now() + opts.waitMs;
    const lease = await EtcdLease.grant(this.client, opts.ttlMs);
    const prefix = mutexPrefix(resource);
    try {
      const mine = await this.tryAcquire(prefix, lease, owner);
      if (!mine.holds) {
        await this.waitDeletes(prefix, mine.rev - 1n, deadline, opts.signal);
        await this.afterWait(resource, mine);
      }
      return keyLease(this.client, resource, mine, lease);
    } catch (err) {
      // Revoking the lease deletes our key with it: a waiter that gives up never blocks the ones behind.
      // Awaited, so the queue no longer holds it once the caller hears of the failure.
      await lease.revokeQuietly();
      if (err instanceof WaitExpired) throw new LockTimeoutError(resource, opts.waitMs);
      throw err;
    }
  }

  /**
   * The check after the wait (etcd issue 11456): our own key must still be there, with the revision
   * we queued with. Gone, our lease ended while we waited, and the lock is not ours.
   */
  protected async afterWait(resource: string, mine: MyKey): Promise<void> {
    const got = await etcdCall(() => this.client.kv.range({ key: Buffer.from(mine.key) }, callBound()));
    const kv = got.kvs[0];
    if (!kv || BigInt(kv.create_revision) !== mine.rev) {
      throw new LockLostError(resource, `key ${mine.key} was deleted while waiting (its lease expired or was revoked)`);
    }
  }

  /**
   * One transaction: put our key under our lease unless it exists (create revision 0), and read the
   * key with the lowest create revision under the prefix, the holder. The key is named after the
   * lease, so a retried put whose first reply was lost finds its own key instead of queueing twice.
   */
  private async tryAcquire(prefix: string, lease: EtcdLease, owner: string): Promise<MyKey & { holds: boolean }> {
    const key = `${prefix}${lease.hexId}`;
    const keyBuf = Buffer.from(key);
    const first: IRangeRequest = { ...prefixRange(prefix), sort_target: SortTarget.Create, sort_order: SortOrder.Ascend, limit: 1 };
    const res = await etcdCall(() =>
      this.client.kv.txn(
        {
          compare: [{ key: keyBuf, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }],
          success: [{ request_put: { key: keyBuf, value: Buffer.from(owner), lease: lease.id } }, { request_range: first }],
          failure: [{ request_range: { key: keyBuf } }, { request_range: first }],
        },
        callBound(),
      ),
    );
    const rev = res.succeeded ? BigInt(res.header.revision) : createRevision(res.responses[0]?.response_range.kvs[0]);
    const holder = res.responses[1]?.response_range.kvs[0];
    return { key, rev, holds: !holder || createRevision(holder) === rev };
  }

  /**
   * Waits until no key under the prefix has a create revision at most `maxRev` (every key queued
   * before ours is gone): watch the latest of them until it is deleted, then look again, since it
   * may have been a waiter that left rather than the holder.
   */
  private async waitDeletes(prefix: string, maxRev: bigint, deadline: number, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const before: IRangeRequest = {
        ...prefixRange(prefix),
        sort_target: SortTarget.Create,
        sort_order: SortOrder.Descend,
        limit: 1,
        max_create_revision: String(maxRev),
      };
      const res = await etcdCall(() => this.client.kv.range(before, callBound()));
      const last = res.kvs[0];
      if (!last) return;
      if (Date.now() >= deadline) throw new WaitExpired();
      const outcome = await waitDelete(this.client, last.key, BigInt(res.header.revision) + 1n, deadline, signal);
      if (outcome === 'expired') throw new WaitExpired();
    }
  }
}

/**
 * etcd-lock-no-recheck: the same recipe without the check after the wait, as etcd shipped it before
 * issue 11456. A waiter whose lease expired while it waited has lost its key, yet once the keys
 * before it are gone it is told it holds the lock; the next acquirer, finding no key before its
 * own, holds it too.
 */
export class EtcdMutexNoRecheckLock extends EtcdMutexLock {
  protected override async afterWait(): Promise<void> {
    // the flaw, kept on purpose: nothing checks that our key is still there
  }
}

/** The wait ran out (waitMs); the acquire turns it into LockTimeoutError. */
class WaitExpired extends Error {}

function createRevision(kv: IKeyValue | undefined): bigint {
  if (!kv) throw new Error('etcd answered a transaction without the key it read');
  return BigInt(kv.create_revision);
}

/**
 * The lease on our key: releasing deletes the key only if it is still ours (same create revision),
 * then revokes the lease. A key already gone (the lease expired, a reset deleted it) is refused
 * with LockNotHeldError, and whoever holds the lock now keeps it.
 */
function keyLease(client: Etcd3, resource: string, mine: MyKey, lease: EtcdLease): Lease {
  const keyBuf = Buffer.from(mine.key);
  return leaseOf(
    resource,
    lease.lost,
    async () => {
      let deleted: boolean;
      try {
        const res = await etcdCall(() =>
          client.kv.txn(
            {
              compare: [{ key: keyBuf, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: String(mine.rev) }],
              success: [{ request_delete_range: { key: keyBuf } }],
            },
            callBound(),
          ),
        );
        deleted = res.succeeded;
      } catch (err) {
        // Unreachable: the lease still ends with its TTL, and the key with it. etcdCall has already
        // named etcd (DependencyDownError); a lease known lost was not held to the end anyway.
        void lease.revokeQuietly();
        if (err instanceof DependencyDownError && lease.lost.aborted) throw new LockNotHeldError(resource);
        throw err;
      }
      await lease.revokeQuietly();
      if (!deleted) throw new LockNotHeldError(resource);
    },
    async () => mine.rev,
  );
}
