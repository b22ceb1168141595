// redis-pubsub (course §2.10.1, Redisson's RLock wait): the reentrant hash lock, its waiters asleep
// until a release is published or the holder's lease ends, with hand-off inside one process.
import type { Redis } from 'ioredis';
import { DependencyDownError } from '../../../dependency.js';
import { Handoffs } from '../../handoff.js';
import { leaseOf, neverLost, ownerOf, type AcquireOptions, type Lease, type Lock } from '../../lock.js';
import { RECHECK_MS, waitOnChannel, type Attempt } from '../wait/channel-wait.js';
import { HashLockScripts } from './hash-lock-scripts.js';
import { releaseChannel } from '../keys.js';
import type { ReleaseNotifier } from '../wait/release-notifier.js';

/** A sleeping waiter, as a holder passing the lock on needs it. */
interface Sleeper {
  owner: string;
  ttlMs: number;
}

/** The hold of this process on a resource, as far as this process knows. */
interface HeldHere {
  owner: string;
  /** Its lease's end by this process's clock. */
  until: number;
}

/**
 * Redisson's waiting (docs/course.md §2.10): the acquire script answers the holder's remaining lease; a
 * waiter sleeps until a release is published or that lease runs out, whichever is first, and
 * tries again. No fixed-interval polling: retryMs is not used.
 *
 * A holder whose process has a waiter asleep passes the lock straight to it in one script
 * (handoff.ts), up to MAX_HANDOFF_STREAK times in a row; then it releases and publishes as usual.
 * A waiter of another process still wakes only on a publish or at the holder's lease end.
 *
 * A request that arrives while another request of this process holds the lock does not make its
 * first attempt (a round trip bound to fail): it sleeps at once, offered for the hand-off, for at
 * most RECHECK_MS or the holder's lease, whichever ends first, then attempts as any waiter does.
 */
export class PubsubLock implements Lock {
  readonly fencing = 'redis';
  readonly expiry = 'lease';
  readonly lostAcquire = 'released by its owner';
  /** Its waiters asleep between attempts; tests wait on `sleeping` to sequence a hand-off. */
  readonly handoffs = new Handoffs<Sleeper, bigint>();
  private readonly heldHere = new Map<string, HeldHere>();

  constructor(
    private readonly redis: Redis,
    private readonly notifier: ReleaseNotifier,
  ) {}

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const owner = ownerOf(opts);
    const scripts = new HashLockScripts(this.redis, resource, owner, opts.ttlMs);
    const held = (token: bigint) => {
      this.heldHere.set(resource, { owner, until: Date.now() + opts.ttlMs });
      return leaseOf(
        resource,
        neverLost,
        () => this.release(scripts),
        async () => token,
      );
    };
    const attempt = async (): Promise<Attempt<bigint>> => {
      const tried = await scripts.tryAcquire();
      if (!tried.held) return { done: false, hintMs: tried.holderLeaseMs };
      this.handoffs.granted(resource);
      return { done: true, value: tried.token };
    };
    const here = this.heldHere.get(resource);
    const holderHereLeaseMs = here && here.owner !== owner ? here.until - Date.now() : 0;
    // Registered for a release message before its first attempt, so a release right after that
    // attempt wakes it. Woken one waiter per instance by a release, or when the holder's lease runs
    // out (−1, no expiry: no hint).
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
      // Another request of this process holds it: the first attempt would fail, so sleep first.
      holderHereLeaseMs > 0 ? Math.min(RECHECK_MS, holderHereLeaseMs) : undefined,
    );
    return held(token);
  }

  /** The last hold goes to a sleeping waiter of this process when there is one, else back to everyone. */
  private async release(scripts: HashLockScripts): Promise<void> {
    const claim = this.handoffs.claim(scripts.resource);
    if (!claim) {
      this.forget(scripts);
      await scripts.release();
      return;
    }
    let token: bigint | undefined;
    try {
      token = await scripts.handOff(claim.waiter.owner, claim.waiter.ttlMs);
    } catch (err) {
      this.forget(scripts);
      // A lost reply: the waiter may hold the lock, and the clean-up releases that under its owner.
      if (err instanceof DependencyDownError) claim.fail(err);
      else claim.settle(undefined);
      throw err;
    }
    claim.settle(token);
  }

  /** This process no longer holds the resource under that owner (or no longer knows it does). */
  private forget(scripts: HashLockScripts): void {
    if (this.heldHere.get(scripts.resource)?.owner === scripts.owner) this.heldHere.delete(scripts.resource);
  }
}
