// Hand-off inside one process. When a holder gives a lock back while another request of the same
// process sleeps between its attempts, the holder passes the lock to that sleeper in one atomic
// step on the server (its release and the sleeper's acquire fused, nobody able to take the lock
// in between). Without it, the hand-off costs a release, a wake-up and a fresh attempt, each a
// round trip, and the lock sits free while they travel.
//
// Safety is the lock's own: the fused step is the same release-then-acquire, owner-checked, with
// a new owner, a new lease and a new fencing token. A sleeper is only ever handed the lock while it
// is not attempting, so its own attempt and a hand-off to it never run at once.
import { reportLockEvent } from './observer.js';

/**
 * Consecutive hand-offs inside one process before its holder releases the lock for everyone
 * (announcing it, so other processes' waiters try too): a process with a long line would
 * otherwise keep the lock for as long as its line lasts.
 */
export const MAX_HANDOFF_STREAK = 8;

export interface HandoffOffer<G> {
  /** Resolves once a holder has claimed this sleeper: stop sleeping and `close()`. */
  readonly claimed: Promise<void>;
  /** Leaves the sleepers; resolves with the grant when a holder passed the lock on, else undefined. */
  close(): Promise<G | undefined>;
}

export interface HandoffClaim<W, G> {
  /** What the sleeper told about itself when it offered (its owner, its lease). */
  readonly waiter: W;
  /** The fused step's outcome: the sleeper's grant, or undefined when it failed (the sleeper attempts again). */
  settle(grant: G | undefined): void;
  /**
   * The fused step's outcome is unknown (its reply was lost): the sleeper may hold the lock without
   * knowing, and a clean-up is giving that back under the sleeper's owner. It must not attempt again
   * under that owner meanwhile, so its wait ends with `err`.
   */
  fail(err: unknown): void;
}

interface Sleeper<W, G> {
  waiter: W;
  claim: () => void;
  result?: Promise<G | undefined>;
}

/** One lock's sleepers per resource, in the order they started sleeping. */
export class Handoffs<W, G> {
  private readonly sleepers = new Map<string, Sleeper<W, G>[]>();
  private readonly streaks = new Map<string, number>();

  /** Called by a waiter right before it sleeps between attempts. */
  offer(resource: string, waiter: W): HandoffOffer<G> {
    let claim!: () => void;
    const claimed = new Promise<void>((resolve) => (claim = resolve));
    const sleeper: Sleeper<W, G> = { waiter, claim };
    const line = this.sleepers.get(resource) ?? [];
    this.sleepers.set(resource, line);
    line.push(sleeper);
    return {
      claimed,
      close: async () => {
        if (sleeper.result) return sleeper.result;
        this.leave(resource, sleeper);
        return undefined;
      },
    };
  }

  /**
   * Called by a holder about to give `resource` back: the first sleeper, taken out of the line (no
   * other holder can claim it, and its sleep ends), or undefined when none sleeps or this process
   * has passed the lock on MAX_HANDOFF_STREAK times in a row.
   */
  claim(resource: string): HandoffClaim<W, G> | undefined {
    const streak = this.streaks.get(resource) ?? 0;
    const first = this.sleepers.get(resource)?.[0];
    if (!first || streak >= MAX_HANDOFF_STREAK) return undefined;
    this.leave(resource, first);
    this.streaks.set(resource, streak + 1);
    let settle!: (grant: G | undefined) => void;
    let fail!: (err: unknown) => void;
    first.result = new Promise<G | undefined>((resolve, reject) => ((settle = resolve), (fail = reject)));
    first.claim();
    return {
      waiter: first.waiter,
      settle: (grant) => {
        if (grant !== undefined) reportLockEvent('handoff');
        settle(grant);
      },
      fail,
    };
  }

  /** How many waiters sleep on `resource` now, offered for a hand-off. */
  sleeping(resource: string): number {
    return this.sleepers.get(resource)?.length ?? 0;
  }

  /** A grant won by an attempt of this process, not passed on: a new streak starts. */
  granted(resource: string): void {
    this.streaks.delete(resource);
  }

  private leave(resource: string, sleeper: Sleeper<W, G>): void {
    const line = this.sleepers.get(resource);
    if (!line) return;
    const at = line.indexOf(sleeper);
    if (at >= 0) line.splice(at, 1);
    if (line.length === 0) this.sleepers.delete(resource);
  }
}

/**
 * Sleeps with `sleep` while offering this waiter for a hand-off. Resolves with the grant a holder
 * passed on, or undefined when the sleep ended without one. When the sleep throws (the request was
 * aborted), a grant that was passed on meanwhile is given back with `giveBack` before rethrowing.
 */
export async function sleepOffered<G>(
  offer: HandoffOffer<G>,
  sleep: (claimed: Promise<void>) => Promise<unknown>,
  giveBack: (grant: G) => Promise<unknown>,
): Promise<G | undefined> {
  try {
    await sleep(offer.claimed);
  } catch (err) {
    const late = await offer.close();
    if (late !== undefined) await giveBack(late).catch(() => undefined);
    throw err;
  }
  return offer.close();
}
