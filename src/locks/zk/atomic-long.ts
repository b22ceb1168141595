// Curator's DistributedAtomicLong (course §3.7.7): compare-and-set on one node's version, promoted
// to a lock when other writers keep winning.
import type { AcquireOptions, Lock } from '../lock.js';
import { withLock } from '../scope.js';
import { remaining, sleep } from '../../time.js';
import { CounterNode, type VersionedValue } from './counter-node.js';
import type { ZkSession } from './session.js';

/** What an update did (Curator's AtomicValue with its AtomicStats): check `succeeded`. */
export interface AtomicOutcome {
  succeeded: boolean;
  /** The value the update started from, and the one it wrote (when it succeeded). */
  preValue?: number;
  postValue?: number;
  optimisticTries: number;
  /** Tries made while holding the promoted-to lock; 0 when the optimistic ones sufficed. */
  promotedTries: number;
}

export interface AtomicLongOptions {
  /** Optimistic compare-and-sets before the update is promoted to the lock (Curator's retry policy). */
  optimisticTries: number;
  /** The lock an update is promoted to, and the resource it locks (Curator's PromotedToLock). */
  lock: Lock;
  lockResource: string;
}

/**
 * Curator's DistributedAtomicLong: an update first tries compare-and-set on the node's version a
 * bounded number of times (pausing a random while between tries); if another writer keeps winning,
 * it takes the lock and tries again under it, until opts.waitMs runs out. Updaters still in their
 * optimistic phase can win against the lock's holder, so the promoted tries retry too.
 */
export class ZkAtomicLong {
  private readonly node: CounterNode;

  constructor(
    session: ZkSession,
    path: string,
    private readonly opts: AtomicLongOptions,
  ) {
    this.node = new CounterNode(session, path, 0);
  }

  get(deadline: number): Promise<VersionedValue> {
    return this.node.read(deadline);
  }

  /** Adds `delta`. A LockTimeoutError when the promoted-to lock was not had within waitMs. */
  async add(delta: number, opts: AcquireOptions): Promise<AtomicOutcome> {
    const deadline = Date.now() + opts.waitMs;
    const outcome: AtomicOutcome = { succeeded: false, optimisticTries: 0, promotedTries: 0 };
    const tryOnce = async (): Promise<boolean> => {
      const current = await this.node.read(deadline);
      const written = await this.node.trySet(current, current.value + delta);
      outcome.preValue = current.value;
      if (written) outcome.postValue = written.value;
      return (outcome.succeeded = written !== undefined);
    };
    const tries = async (counter: 'optimisticTries' | 'promotedTries', more: () => boolean): Promise<boolean> => {
      for (;;) {
        outcome[counter]++;
        if (await tryOnce()) return true;
        const pause = Math.random() * Math.min(opts.retryMs, 2 ** Math.min(outcome[counter], 10));
        if (!more() || remaining(deadline) <= pause) return false;
        await sleep(pause);
      }
    };
    if (await tries('optimisticTries', () => outcome.optimisticTries < this.opts.optimisticTries)) return outcome;
    if (remaining(deadline) === 0) return outcome;
    await withLock(this.opts.lock, this.opts.lockResource, { ...opts, waitMs: remaining(deadline) }, () => tries('promotedTries', () => true));
    return outcome;
  }
}
