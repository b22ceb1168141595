import type { Redis } from 'ioredis';
import { leaseOf, neverLost, ownerOf, type AcquireOptions, type Lease, type Lock } from '../lock.js';
import { waitOnChannel, type Attempt } from './channel-wait.js';
import { HashLockScripts } from './hash-lock-scripts.js';
import { releaseChannel } from './keys.js';
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
    // Woken one waiter per instance by a release, or when the holder's lease runs out (−1, no expiry: no hint).
    const waiting = { resource, waitMs: opts.waitMs, channel: releaseChannel(resource), wakes: 'one', recheckMs: Infinity } as const;
    const token = await waitOnChannel(this.notifier, waiting, async (): Promise<Attempt<bigint>> => {
      const attempt = await scripts.tryAcquire();
      return attempt.held ? { done: true, value: attempt.token } : { done: false, hintMs: attempt.holderLeaseMs };
    });
    return held(token);
  }
}
