// Reentrant hold counting (src/locks/holds.ts) and the lock it makes reentrant per owner
// (src/locks/zk/owner-reentrant.ts), here over the in-process mutex: no server involved.
import { describe, expect, it } from 'vitest';
import { LockNotHeldError, LockTimeoutError } from '../../src/locks/errors.js';
import { HoldCounter } from '../../src/locks/holds.js';
import { leaseOf, neverLost, type AcquireOptions, type Lease, type Lock } from '../../src/locks/lock.js';
import { InProcessMutexLock } from '../../src/locks/mutex.js';
import { OwnerReentrant } from '../../src/locks/zk/owner-reentrant.js';
import { deferred, isSettled } from '../support/deferred.js';

const R = 'stock:1';

describe('HoldCounter', () => {
  it('makes the shared data on the first hold only, and counts every hold', () => {
    const holds = new HoldCounter<{ n: number }>();
    const key = { resource: R, owner: 'o1' };
    let made = 0;
    const first = () => ({ n: ++made });
    const a = holds.enter(key, first);
    const b = holds.enter(key, first);
    expect(b).toBe(a);
    expect(made).toBe(1);
    expect(holds.count(key)).toBe(2);
    expect(holds.shared(key)).toBe(a);
  });

  it('forgets the key on its last release: the next hold is a first again', () => {
    const holds = new HoldCounter<object>();
    const key = { resource: R, owner: 'o1' };
    const data = holds.enter(key, () => ({}));
    holds.enter(key, () => ({}));
    expect(holds.leave(key, data)).toBe(1);
    expect(holds.shared(key)).toBe(data);
    expect(holds.leave(key, data)).toBe(0);
    expect(holds.count(key)).toBe(0);
    expect(holds.shared(key)).toBeUndefined();
    const again = holds.enter(key, () => ({}));
    expect(again).not.toBe(data);
  });

  it("refuses (-1) a release with no hold, or of an earlier first hold's data, leaving the count alone", () => {
    const holds = new HoldCounter<object>();
    const key = { resource: R, owner: 'o1' };
    expect(holds.leave(key, {})).toBe(-1);
    const old = holds.enter(key, () => ({}));
    holds.leave(key, old);
    const fresh = holds.enter(key, () => ({}));
    expect(holds.leave(key, old)).toBe(-1);
    expect(holds.count(key)).toBe(1);
    expect(holds.leave(key, fresh)).toBe(0);
  });

  it('counts each resource, owner and mode apart; no mode is exclusive', () => {
    const holds = new HoldCounter<string>();
    holds.enter({ resource: R, owner: 'o1' }, () => 'exclusive');
    holds.enter({ resource: R, owner: 'o1', mode: 'read' }, () => 'read');
    holds.enter({ resource: R, owner: 'o1', mode: 'read' }, () => 'read');
    holds.enter({ resource: R, owner: 'o1', mode: 'write' }, () => 'write');
    holds.enter({ resource: R, owner: 'o2', mode: 'read' }, () => 'other owner');
    holds.enter({ resource: 'stock:2', owner: 'o1', mode: 'read' }, () => 'other resource');
    expect(holds.count({ resource: R, owner: 'o1', mode: 'exclusive' })).toBe(1);
    expect(holds.shared({ resource: R, owner: 'o1', mode: 'exclusive' })).toBe('exclusive');
    expect(holds.count({ resource: R, owner: 'o1', mode: 'read' })).toBe(2);
    expect(holds.shared({ resource: R, owner: 'o1', mode: 'write' })).toBe('write');
    expect(holds.shared({ resource: R, owner: 'o2', mode: 'read' })).toBe('other owner');
    expect(holds.shared({ resource: 'stock:2', owner: 'o1', mode: 'read' })).toBe('other resource');
    expect(holds.count({ resource: R, owner: 'o2' })).toBe(0);
  });

  it('keeps names that would run together apart', () => {
    const holds = new HoldCounter<string>();
    holds.enter({ resource: 'a', owner: 'b:c' }, () => 'first');
    holds.enter({ resource: 'a', owner: 'bc' }, () => 'second');
    expect(holds.count({ resource: 'a:b', owner: 'c' })).toBe(0);
    expect(holds.count({ resource: 'ab', owner: 'c' })).toBe(0);
  });
});

const opts = (owner: string, waitMs = 1_000): AcquireOptions => ({ owner, ttlMs: 30_000, waitMs, retryMs: 5 });

/** A lock that counts the acquires and releases that reach it. */
function counted(inner: Lock): { lock: Lock; acquires: () => number; releases: () => number } {
  let acquires = 0;
  let releases = 0;
  return {
    acquires: () => acquires,
    releases: () => releases,
    lock: {
      acquire: async (resource, o) => {
        acquires++;
        const lease = await inner.acquire(resource, o);
        return leaseOf(resource, lease.lost, async () => {
          releases++;
          await lease.release();
        });
      },
    },
  };
}

describe('OwnerReentrant', () => {
  it('takes the inner lock once per owner, and gives it back on the last release', async () => {
    const inner = counted(new InProcessMutexLock());
    const lock = new OwnerReentrant(inner.lock, 'exclusive');
    const outer = await lock.acquire(R, opts('o1'));
    const nested = await lock.acquire(R, opts('o1'));
    expect(inner.acquires()).toBe(1);
    await nested.release();
    expect(inner.releases()).toBe(0);
    // Still held: another owner waits.
    const other = lock.acquire(R, opts('o2'));
    expect(await isSettled(other)).toBe(false);
    await outer.release();
    expect(inner.releases()).toBe(1);
    await (await other).release();
    expect(inner.acquires()).toBe(2);
  });

  it('refuses a second release of the same lease without touching the other holds', async () => {
    const inner = counted(new InProcessMutexLock());
    const lock = new OwnerReentrant(inner.lock, 'exclusive');
    const outer = await lock.acquire(R, opts('o1'));
    const nested = await lock.acquire(R, opts('o1'));
    await nested.release();
    await expect(nested.release()).rejects.toBeInstanceOf(LockNotHeldError);
    expect(inner.releases()).toBe(0);
    await outer.release();
    expect(inner.releases()).toBe(1);
  });

  it('lets a nested acquire share a first acquire still waiting, so both resolve with the one grant', async () => {
    const grant = deferred<Lease>();
    let acquires = 0;
    const lock = new OwnerReentrant(
      {
        acquire: () => {
          acquires++;
          return grant.promise;
        },
      },
      'exclusive',
    );
    const first = lock.acquire(R, opts('o1'));
    const nested = lock.acquire(R, opts('o1'));
    let released = 0;
    grant.resolve(leaseOf(R, neverLost, async () => void released++));
    const [a, b] = await Promise.all([first, nested]);
    expect(acquires).toBe(1);
    await a.release();
    await b.release();
    expect(released).toBe(1);
  });

  it("forgets a failed acquire: the owner's next acquire tries the inner lock again", async () => {
    const mutex = new InProcessMutexLock();
    const lock = new OwnerReentrant(mutex, 'exclusive');
    const blocker = await mutex.acquire(R, opts('blocker'));
    await expect(lock.acquire(R, opts('o1', 10))).rejects.toBeInstanceOf(LockTimeoutError);
    expect(lock.heldBy(R, 'o1')).toBeUndefined();
    await blocker.release();
    const lease = await lock.acquire(R, opts('o1'));
    expect(lock.heldBy(R, 'o1')).toBeDefined();
    await lease.release();
    expect(lock.heldBy(R, 'o1')).toBeUndefined();
  });

  it('tells the lease an owner holds once it is granted, in its own mode only', async () => {
    const mutex = new InProcessMutexLock();
    const write = new OwnerReentrant(mutex, 'write');
    const lease = await write.acquire(R, opts('o1'));
    expect(write.heldBy(R, 'o1')).toBeDefined();
    expect(write.heldBy(R, 'o2')).toBeUndefined();
    expect(new OwnerReentrant(mutex, 'read').heldBy(R, 'o1')).toBeUndefined();
    await lease.release();
  });
});
