// The redlock package as its README uses it: `using()`, with the package's own retry loop and
// its automatic extension. `redlock` in the catalog is the same package under stocklab's retry
// loop (RedlockLock), so the two rows show what that loop is worth.
import { LockLostError, LockTimeoutError } from '../errors.js';
import { leaseOf, ownerOf, type AcquireOptions, type Lease, type Lock } from '../lock.js';
import { redlockKey } from '../redis/keys.js';
import { explainFailure } from '../redis/redlock/redlock.js';
import type { Redlock } from '../redis/redlock/package.js';

/** The package's default: extend when 500 ms of the lease are left. It needs ttl ≥ threshold + 100. */
const EXTENSION_THRESHOLD_MS = 500;
const MIN_TTL_MS = 200;

export class LibRedlockUsingLock implements Lock {
  constructor(private readonly redlock: Redlock) {}

  acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    ownerOf(opts);
    if (opts.ttlMs < MIN_TTL_MS) {
      // The package refuses a lease this short for its automatic extension: nothing to hold.
      return Promise.reject(new LockLostError(resource, `the redlock package's using() needs ttlMs of at least ${MIN_TTL_MS}`));
    }
    // Its own loop pauses retryDelay ± retryJitter between tries; count the shortest pause, so
    // the tries span at least waitMs (at most about 1.4 × waitMs) and a waiter never gives up early.
    const retryJitter = Math.max(1, Math.round(opts.retryMs / 5));
    const shortestPauseMs = Math.max(1, opts.retryMs - retryJitter);
    const settings = {
      retryDelay: opts.retryMs,
      retryJitter,
      retryCount: Math.max(0, Math.ceil(opts.waitMs / shortestPauseMs)),
      automaticExtensionThreshold: Math.min(EXTENSION_THRESHOLD_MS, opts.ttlMs - 100),
    };
    return new Promise<Lease>((resolve, reject) => {
      let finish = () => {};
      const workDone = new Promise<void>((r) => (finish = r));
      // The routine runs while the lock is held; it holds until the lease is released.
      const using = this.redlock.using([redlockKey(`lib:${resource}`)], opts.ttlMs, settings, async (signal) => {
        resolve(
          leaseOf(resource, signal, async () => {
            finish();
            await using;
          }),
        );
        await workDone;
      });
      using.catch(async (err: unknown) => {
        reject(await explainFailure(err, () => new LockTimeoutError(resource, opts.waitMs)));
      });
    });
  }
}
