// What every lock is built from (src/locks/lock.ts, owner.ts, poll.ts): a lease released once, a
// lease that ends by the clock, the explicit owner, and the polling loop.
import { describe, expect, it, vi } from 'vitest';
import { LockNotHeldError, LockTimeoutError } from '../../src/locks/errors.js';
import { expiringAt, leaseOf, neverLost, ownerOf, type AcquireOptions } from '../../src/locks/lock.js';
import { newOwnerToken } from '../../src/locks/owner.js';
import { pollUntilAcquired } from '../../src/locks/poll.js';
import { sleep } from '../../src/time.js';

const R = 'stock:1';
const opts: AcquireOptions = { owner: 'o1', ttlMs: 30_000, waitMs: 1_000, retryMs: 5 };

describe('leaseOf', () => {
  it('releases once; a second release is refused and reaches nothing', async () => {
    const release = vi.fn(async () => undefined);
    const lease = leaseOf(R, neverLost, release);
    await lease.release();
    await expect(lease.release()).rejects.toBeInstanceOf(LockNotHeldError);
    expect(release).toHaveBeenCalledTimes(1);
  });

  it('counts a release that failed as done: it is not run again', async () => {
    const release = vi.fn(() => Promise.reject(new Error('server down')));
    const lease = leaseOf(R, neverLost, release);
    await expect(lease.release()).rejects.toThrow('server down');
    await expect(lease.release()).rejects.toBeInstanceOf(LockNotHeldError);
    expect(release).toHaveBeenCalledTimes(1);
  });

  it('offers a fencing token only when the lock issues one', async () => {
    expect(leaseOf(R, neverLost, async () => undefined).fencingToken).toBeUndefined();
    expect(
      await leaseOf(
        R,
        neverLost,
        async () => undefined,
        async () => 7n,
      ).fencingToken?.(),
    ).toBe(7n);
  });
});

describe('expiringAt', () => {
  it('is lost from the start when the lease already ended', () => {
    const { lost } = expiringAt(Date.now() - 1, 'lease ended');
    expect(lost.aborted).toBe(true);
    expect(lost.reason).toBe('lease ended');
  });

  it('fires at the lease end, not before', async () => {
    const started = Date.now();
    const { lost } = expiringAt(started + 20, 'lease ended');
    expect(lost.aborted).toBe(false);
    await new Promise<void>((resolve) => lost.addEventListener('abort', () => resolve()));
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
    expect(lost.reason).toBe('lease ended');
  });

  it('never fires once cancelled', async () => {
    const { lost, cancel } = expiringAt(Date.now() + 10, 'lease ended');
    cancel();
    await sleep(30);
    expect(lost.aborted).toBe(false);
  });
});

describe('owners', () => {
  it('refuses an acquire without an explicit owner', () => {
    expect(ownerOf(opts)).toBe('o1');
    expect(() => ownerOf({ ...opts, owner: '' })).toThrow(TypeError);
    expect(() => ownerOf({ ...opts, owner: undefined as unknown as string })).toThrow(TypeError);
  });

  it('makes a token per request that names its instance', () => {
    const a = newOwnerToken('instance-2');
    expect(a.startsWith('instance-2:')).toBe(true);
    expect(newOwnerToken('instance-2')).not.toBe(a);
  });
});

describe('pollUntilAcquired', () => {
  it('tries again every retryMs until a try succeeds', async () => {
    let tries = 0;
    await pollUntilAcquired(R, opts, async () => ++tries === 3);
    expect(tries).toBe(3);
  });

  it('gives up with LockTimeoutError once waitMs is spent, after a last try', async () => {
    const started = Date.now();
    let tries = 0;
    await expect(
      pollUntilAcquired(R, { ...opts, waitMs: 30, retryMs: 10 }, async () => {
        tries++;
        return false;
      }),
    ).rejects.toBeInstanceOf(LockTimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(tries).toBeGreaterThanOrEqual(2);
  });

  it('stops at the signal: not tried when already aborted, and cut short in its sleep', async () => {
    const tryOnce = vi.fn(async () => false);
    const gone = new Error('client left');
    await expect(pollUntilAcquired(R, { ...opts, signal: AbortSignal.abort(gone) }, tryOnce)).rejects.toBe(gone);
    expect(tryOnce).not.toHaveBeenCalled();

    const controller = new AbortController();
    const started = Date.now();
    const polling = pollUntilAcquired(R, { ...opts, waitMs: 60_000, retryMs: 60_000, signal: controller.signal }, tryOnce);
    await vi.waitFor(() => expect(tryOnce).toHaveBeenCalledTimes(1));
    controller.abort(gone);
    await expect(polling).rejects.toBe(gone);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
