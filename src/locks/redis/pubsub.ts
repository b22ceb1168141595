import type { Redis } from 'ioredis';
import { LockTimeoutError } from '../errors.js';
import { leaseOf, neverLost, ownerOf, type AcquireOptions, type Lease, type Lock } from '../lock.js';
import { remaining } from '../../time.js';
import { HashLockScripts, type HashLockAttempt } from './hash-lock-scripts.js';
import { releaseChannel } from './keys.js';
import { redisCall } from '../../redis/call.js';
import type { ReleaseNotifier } from './release-notifier.js';

/**
 * Redisson's waiting (docs/course.md §2.10): the acquire script answers the holder's remaining lease; a
 * waiter sleeps until a release is published or that lease runs out, whichever is first, and
 * tries again. No fixed-interval polling: retryMs is not used.
 */
export class PubsubLock implements Lock {
  readonly fencing = 'redis';

  constructor(
    private readonly redis: Redis,
    private readonly notifier: ReleaseNotifier,
  ) {}

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const scripts = new HashLockScripts(this.redis, resource, ownerOf(opts), opts.ttlMs);
    const held = (token: bigint) => leaseOf(resource, neverLost, () => scripts.release(), async () => token);
    const first = await scripts.tryAcquire();
    if (first.held) return held(first.token);

    const deadline = Date.now() + opts.waitMs;
    const channel = releaseChannel(resource);
    await redisCall(() => this.notifier.subscribe(channel));
    for (;;) {
      const release = this.notifier.nextRelease(channel);
      let attempt: HashLockAttempt;
      try {
        attempt = await scripts.tryAcquire();
      } catch (err) {
        release.cancel();
        throw err;
      }
      if (attempt.held) {
        release.cancel();
        return held(attempt.token);
      }
      const { holderLeaseMs } = attempt;
      const left = remaining(deadline);
      if (left <= 0) {
        release.cancel();
        throw new LockTimeoutError(resource, opts.waitMs);
      }
      // A lease without expiry (−1) gives no hint: wait for the message or the deadline.
      await release.within(holderLeaseMs >= 0 ? Math.min(holderLeaseMs + 1, left) : left);
    }
  }
}
