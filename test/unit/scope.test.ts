// The lock's lifetime as a scope (src/locks/scope.ts, reenter-once.ts): released whatever the work
// does, a failed release reported beside the work's value, an abort honoured during the acquire.
// The locks here are in-process (the mutex) or a lock the test grants by hand.
import { describe, expect, it, vi } from 'vitest';
import { LockLostError, LockTimeoutError } from '../../src/locks/errors.js';
import { leaseOf, neverLost, type AcquireOptions, type Lease, type Lock } from '../../src/locks/lock.js';
import { InProcessMutexLock } from '../../src/locks/mutex.js';
import { withLockReentered } from '../../src/locks/reenter-once.js';
import { withLock } from '../../src/locks/scope.js';
import { OwnerReentrant } from '../../src/locks/zk/owner-reentrant.js';
import { deferred, isSettled } from '../support/deferred.js';

const R = 'stock:1';
const opts: AcquireOptions = { owner: 'o1', ttlMs: 30_000, waitMs: 1_000, retryMs: 5 };

/** A lock whose one grant the test hands out, with a lease that counts its releases. */
function handGranted<L extends Lease>(lease: L) {
  const grant = deferred<L>();
  const acquire = vi.fn((_resource: string, _opts: AcquireOptions) => grant.promise);
  return { lock: { acquire } satisfies Lock<L>, grant: () => grant.resolve(lease) };
}

function countedLease(release: () => Promise<void> = async () => undefined, lost = neverLost) {
  const counted = vi.fn(release);
  return { lease: leaseOf(R, lost, counted), releases: counted };
}

describe('withLock', () => {
  it('runs the work holding the lock, then releases it', async () => {
    const { lease, releases } = countedLease();
    const { lock, grant } = handGranted(lease);
    grant();
    const scoped = await withLock(lock, R, opts, async (held) => {
      expect(held.resource).toBe(R);
      expect(held.owner).toBe('o1');
      expect(releases).not.toHaveBeenCalled();
      return 'sold';
    });
    expect(scoped).toEqual({ value: 'sold' });
    expect(releases).toHaveBeenCalledTimes(1);
  });

  it("releases when the work throws, and rethrows the work's error even if the release fails too", async () => {
    const { lease, releases } = countedLease(() => Promise.reject(new Error('server down')));
    const { lock, grant } = handGranted(lease);
    grant();
    const failed = new Error('work failed');
    await expect(withLock(lock, R, opts, () => Promise.reject(failed))).rejects.toBe(failed);
    expect(releases).toHaveBeenCalledTimes(1);
  });

  it("returns the value of finished work when the release fails, with the release's error beside it", async () => {
    const { lease } = countedLease(() => Promise.reject(new Error('lease expired')));
    const { lock, grant } = handGranted(lease);
    grant();
    const scoped = await withLock(lock, R, opts, async () => 'sold');
    expect(scoped.value).toBe('sold');
    expect(scoped.releaseError?.message).toBe('lease expired');
  });

  it('lets the work check the hold: assertHeld throws LockLostError once the lease is lost', async () => {
    const lost = new AbortController();
    const { lease } = countedLease(undefined, lost.signal);
    const { lock, grant } = handGranted(lease);
    grant();
    await withLock(lock, R, opts, async (held) => {
      held.assertHeld();
      lost.abort('renewal failed');
      expect(held.lost.aborted).toBe(true);
      expect(() => held.assertHeld()).toThrow(LockLostError);
    });
  });

  it("hands the work its lease's extras, not Lease's own members", async () => {
    const { lease } = countedLease();
    const { lock, grant } = handGranted({ ...lease, ticket: 4 });
    grant();
    await withLock(lock, R, opts, async (held) => {
      expect(held.extras).toEqual({ ticket: 4 });
    });
  });

  it('does not ask for the lock when the request was already given up', async () => {
    const { lease } = countedLease();
    const { lock } = handGranted(lease);
    const gone = new Error('client left');
    await expect(withLock(lock, R, { ...opts, signal: AbortSignal.abort(gone) }, async () => 'sold')).rejects.toBe(gone);
    expect(lock.acquire).not.toHaveBeenCalled();
  });

  it('stops waiting at once when the request is given up, and gives a late grant straight back', async () => {
    const { lease, releases } = countedLease();
    const { lock, grant } = handGranted(lease);
    const request = new AbortController();
    const work = vi.fn(async () => 'sold');
    const scoped = withLock(lock, R, { ...opts, signal: request.signal }, work);
    expect(await isSettled(scoped)).toBe(false);
    const gone = new Error('client left');
    request.abort(gone);
    await expect(scoped).rejects.toBe(gone);
    grant();
    await vi.waitFor(() => expect(releases).toHaveBeenCalledTimes(1));
    expect(work).not.toHaveBeenCalled();
  });
});

describe('withLockReentered', () => {
  it('passes straight through a reentrant lock, taking it once', async () => {
    const mutex = new InProcessMutexLock();
    const acquire = vi.spyOn(mutex, 'acquire');
    const scoped = await withLockReentered(new OwnerReentrant(mutex, 'exclusive'), R, opts, async () => 'sold');
    expect(scoped).toEqual({ value: 'sold' });
    expect(acquire).toHaveBeenCalledTimes(1);
    // Given back: another owner gets it at once.
    await (await mutex.acquire(R, { ...opts, owner: 'o2', waitMs: 0 })).release();
  });

  it('waits for itself on a lock that is not reentrant, until waitMs', async () => {
    const mutex = new InProcessMutexLock();
    const work = vi.fn(async () => 'sold');
    await expect(withLockReentered(mutex, R, { ...opts, waitMs: 20 }, work)).rejects.toBeInstanceOf(LockTimeoutError);
    expect(work).not.toHaveBeenCalled();
    // The outer hold was given back when the inner acquire failed.
    await (await mutex.acquire(R, { ...opts, waitMs: 0 })).release();
  });
});
