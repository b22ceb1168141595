// Baseline: the etcd3 package's own Lock (client.lock(name)) behind the Lock interface, with the
// request's ttl. Its acquire tries once (a put if the key has never been created, under a lease
// the package keeps alive) and fails when the key exists, so stocklab retries it every retryMs.
import { EtcdLeaseInvalidError, EtcdLockFailedError, type Etcd3, type Lock as Etcd3Lock } from 'etcd3';
import { ETCD_LOCK_ROOT, etcdCall } from '../etcd/client.js';
import { leaseSeconds } from '../etcd/lease.js';
import { LockTimeoutError } from '../errors.js';
import { leaseOf, neverLost, ownerOf, type AcquireOptions, type Lease, type Lock } from '../lock.js';
import { remaining, sleep } from '../../time.js';

/** Where the package's lock keys live, one per resource. */
export function etcd3LockKey(resource: string): string {
  return `${ETCD_LOCK_ROOT}lib/${encodeURIComponent(resource)}`;
}

/**
 * As the package is meant to be used: one Lock object per acquire, with the lease TTL in whole
 * seconds (ttlMs rounded up, at least 1). The package keeps the lease alive, but its Lock does not
 * say when the lease is lost (`lost` never fires), and its release revokes the lease without saying
 * whether the key was still ours (a late release is silent; it frees nobody else, the key of a
 * later holder being under that holder's lease). Spins: an unfair lock.
 */
export class LibEtcd3Lock implements Lock {
  constructor(private readonly client: Etcd3) {}

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    ownerOf(opts); // the package keys the hold on its own lease; the owner is checked so every lock asks alike
    const deadline = Date.now() + opts.waitMs;
    for (;;) {
      const lock: Etcd3Lock = this.client.lock(etcd3LockKey(resource)).ttl(leaseSeconds(opts.ttlMs));
      try {
        await etcdCall(() => lock.acquire());
        return leaseOf(resource, neverLost, () => etcdCall(() => lock.release()));
      } catch (err) {
        // Taken: the package has already revoked the lease of this attempt, and it is tried again.
        // Anything else leaves the package's lease with its keep-alive running: it is revoked.
        if (!(err instanceof EtcdLockFailedError)) {
          void Promise.resolve()
            .then(() => lock.release())
            .catch(() => undefined);
          // The lease gone before the put (the process paused between the grant and the put past
          // its TTL): etcd refused the whole transaction, no key was written, so this attempt is
          // tried again as a taken one is. Anything else (etcd unreachable) is the request's answer.
          if (!(err instanceof EtcdLeaseInvalidError)) throw err;
        }
      }
      if (remaining(deadline) === 0) throw new LockTimeoutError(resource, opts.waitMs);
      await sleep(Math.min(opts.retryMs, remaining(deadline)), opts.signal);
    }
  }
}
