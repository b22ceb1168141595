import type { Redis } from 'ioredis';
import { DependencyDownError } from '../../../dependency.js';
import { Handoffs } from '../../handoff.js';
import { leaseOf, neverLost, ownerOf, type AcquireOptions, type Lease, type Lock } from '../../lock.js';
import { waitOnChannel, type Attempt } from '../wait/channel-wait.js';
import { HashLockScripts } from './hash-lock-scripts.js';
import { releaseChannel } from '../keys.js';
import type { ReleaseNotifier } from '../wait/release-notifier.js';

/** A sleeping waiter, as a holder passing the lock on needs it. */
interface Sleeper {
  owner: string;
  ttlMs: number;
}

/**
 * Redisson's waiting (docs/course.md §2.10): the acquire script answers the holder's remaining lease; a
 * waiter sleeps until a release is published or that lease runs out, whichever is first, and
 * tries again. No fixed-interval polling: retryMs is not used.
 *
 * A holder whose process has a waiter asleep passes the lock straight to it in one script
 * (handoff.ts), up to MAX_HANDOFF_STREAK times in a row; then it releases and publishes as usual.
 * A waiter of another process still wakes only on a publish or at the holder's lease end.
 */
export class PubsubLock implements Lock {
  readonly fencing = 'redis';
  readonly expiry = 'lease';
  readonly lostAcquire = 'released by its owner';
  /** Its waiters asleep between attempts; tests wait on `sleeping` to sequence a hand-off. */
  readonly handoffs = new Handoffs<Sleeper, bigint>();

  constructor(
    private readonly redis: Redis,
    private readonly notifier: ReleaseNotifier,
  ) {}

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const owner = ownerOf(opts);
    const scripts = new HashLockScripts(this.redis, resource, owner, opts.ttlMs);
    const held = (token: bigint) => leaseOf(resource, neverLost, () => this.release(scripts), async () => token);
    const attempt = async (): Promise<Attempt<bigint>> => {
      const tried = await scripts.tryAcquire();
      if (!tried.held) return { done: false, hintMs: tried.holderLeaseMs };
      this.handoffs.granted(resource);
      return { done: true, value: tried.token };
    };
    const first = await attempt();
    if (first.done) return held(first.value);
    // Woken one waiter per instance by a release, or when the holder's lease runs out (−1, no expiry: no hint).
    const token = await waitOnChannel(
      this.notifier,
      {
        resource,
        waitMs: opts.waitMs,
        // A waiter whose client left stops waiting, and is no longer offered a hand-off.
        ...(opts.signal && { signal: opts.signal }),
        channel: releaseChannel(resource),
        wakes: 'one',
        recheckMs: Infinity,
        handoff: { offer: () => this.handoffs.offer(resource, { owner, ttlMs: opts.ttlMs }), giveBack: () => scripts.release() },
      },
      attempt,
    );
    return held(token);
  }

  /** The last hold goes to a sleeping waiter of this process when there is one, else back to everyone. */
  private async release(scripts: HashLockScripts): Promise<void> {
    const claim = this.handoffs.claim(scripts.resource);
    if (!claim) {
      await scripts.release();
      return;
    }
    let token: bigint | undefined;
    try {
      token = await scripts.handOff(claim.waiter.owner, claim.waiter.ttlMs);
    } catch (err) {
      // A lost reply: the waiter may hold the lock, and the clean-up releases that under its owner.
      if (err instanceof DependencyDownError) claim.fail(err);
      else claim.settle(undefined);
      throw err;
    }
    claim.settle(token);
  }
}
