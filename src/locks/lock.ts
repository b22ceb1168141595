// The one interface every lock implements. A lock knows resources and owners, nothing of stock or HTTP.
import type { FenceSource } from '../fencing.js';
import { LockNotHeldError } from './errors.js';

/** The request's lock tunables, as GET /check/lock parses them. */
export interface LockOptions {
  /** Lease length; locks without expiry ignore it. */
  ttlMs: number;
  /** Longest wait before acquire rejects with LockTimeoutError. */
  waitMs: number;
  /** Pause between attempts for locks that retry by polling. */
  retryMs: number;
}

/**
 * What one acquire asks for: the tunables plus who is asking. The owner is explicit: the caller
 * names it (one token per request, see owner.ts), and the same owner asking again is what a
 * reentrant lock re-enters on. Java keys this on the thread; Node has no thread to key on.
 */
export interface AcquireOptions extends LockOptions {
  owner: string;
  /** The request gave up (its client left, the service is shutting down): stop waiting. */
  signal?: AbortSignal;
  /**
   * The fault lab's stop inside the lock's own steps (FAULT_INJECTION=1 only): the lock calls it at
   * each of its `pausePoints`, in its acquire or in the release of the lease it grants.
   */
  pause?: (at: LockPausePoint) => void;
}

/**
 * Steps inside a lock where the fault lab may stop the process, for the locks whose flaw lies
 * between two of their own commands: after SETNX and before its EXPIRE (redis-setnx-expire);
 * in the release, right before the command that deletes the lock (after the owner check when it
 * is a separate GET).
 */
export const LOCK_PAUSE_POINTS = ['after-setnx', 'before-del'] as const;
export type LockPausePoint = (typeof LOCK_PAUSE_POINTS)[number];

export interface Lease {
  /** Aborted when the holder learns the lock is gone (renewal failed, session expired). */
  readonly lost: AbortSignal;
  /** Gives the lock up; rejects with LockNotHeldError when this owner no longer holds it. */
  release(): Promise<void>;
  /**
   * This grant's fencing token, from `Lock.fencing`'s counter: larger than every earlier grant's.
   * Rejects with LockLostError when the grant is provably gone (a ZooKeeper node read after its
   * session died). Absent on locks that issue none.
   */
  fencingToken?(): Promise<bigint>;
}

/** What a lease tells its holder beyond the lock itself (the fair lock's ticket): the lease minus Lease's own members. */
export type LeaseExtras<L extends Lease> = Omit<L, keyof Lease>;

/** What frees a grant whose holder stopped without giving it back: nothing, its lease's end (ttlMs), its ZooKeeper session's end. */
export type Expiry = 'none' | 'lease' | 'session';

/**
 * What becomes of a grant whose acquire was applied but whose reply was lost: its owner gives it
 * back with an owner-checked release, or it lasts until its lease ends.
 */
export type LostAcquire = 'released by its owner' | 'expires with its lease';

/** `L`: the lease it grants, for locks whose leases say more than Lease (the fair lock's ticket). */
export interface Lock<L extends Lease = Lease> {
  /** The counter this lock's tokens come from; absent when it issues none (RedLock, the mutex). */
  readonly fencing?: FenceSource;
  /** How a dead holder's grant ends; declared by the locks the fault lab measures (see strategies/declare.ts). */
  readonly expiry?: Expiry;
  /** What an acquire whose reply was lost leaves behind; declared with `expiry`. */
  readonly lostAcquire?: LostAcquire;
  /** Where it calls `AcquireOptions.pause`; absent when nowhere. */
  readonly pausePoints?: readonly LockPausePoint[];
  /** Resolves once `opts.owner` holds `resource`. */
  acquire(resource: string, opts: AcquireOptions): Promise<L>;
}

/** A lock that declares how its grants end without their holder: what its fault outcomes follow from. */
export type LockWithExpiry<L extends Lease = Lease> = Lock<L> & { readonly expiry: Expiry; readonly lostAcquire: LostAcquire };

/** For locks that cannot learn of a loss: their signal never fires. */
export const neverLost: AbortSignal = new AbortController().signal;

/**
 * A lease whose release runs once: a second release of the same lease throws LockNotHeldError
 * instead of giving back a hold it no longer has (which, on a counting lock, would be another's).
 */
export function leaseOf(resource: string, lost: AbortSignal, release: () => Promise<unknown>, fencingToken?: () => Promise<bigint>): Lease {
  let released = false;
  return {
    lost,
    release: async () => {
      if (released) throw new LockNotHeldError(resource);
      released = true;
      await release();
    },
    ...(fencingToken && { fencingToken }),
  };
}

/** Releases every lease, last taken first, even when one fails; then throws the first failure (the multi-locks' release). */
export async function releaseAll(leases: readonly Lease[]): Promise<void> {
  const failures: unknown[] = [];
  for (const lease of [...leases].reverse()) {
    try {
      await lease.release();
    } catch (err) {
      failures.push(err);
    }
  }
  if (failures.length > 0) throw failures[0];
}

/**
 * A `lost` signal that fires at `expiresAt` (a lease's end by this process's clock, which started
 * before the grant: early, never late), until `cancel`. For leases nothing renews.
 */
export function expiringAt(expiresAt: number, why: string): { lost: AbortSignal; cancel: () => void } {
  const controller = new AbortController();
  // Already past (a grant slower than its lease): lost from the start, not a tick later.
  if (expiresAt <= Date.now()) {
    controller.abort(why);
    return { lost: controller.signal, cancel: () => undefined };
  }
  const timer = setTimeout(() => controller.abort(why), expiresAt - Date.now());
  timer.unref();
  return { lost: controller.signal, cancel: () => clearTimeout(timer) };
}

/** The owner of an acquire, checked: a missing owner is a bug in the caller, never a fresh identity. */
export function ownerOf(opts: AcquireOptions): string {
  if (typeof opts.owner !== 'string' || opts.owner.length === 0) throw new TypeError('acquire needs an explicit owner (opts.owner)');
  return opts.owner;
}
