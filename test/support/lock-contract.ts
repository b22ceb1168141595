// The lock contract: the same cases against every Lock (Curator runs one abstract mutex suite over
// each of its locks). A lock states what it claims (reentrant or not, how a late release behaves,
// whether it can learn of a loss) and the suite holds it to exactly that: a claim of the course's
// flawed steps is asserted as the flaw, so a "fix" that silently changes a lesson fails too.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { LockNotHeldError, LockTimeoutError } from '../../src/locks/errors.js';
import type { AcquireOptions, Lease, Lock } from '../../src/locks/lock.js';
import { withLock } from '../../src/locks/scope.js';
import { pollUntil, sleep } from '../../src/time.js';

export interface LockClaims {
  /** The same owner may acquire again while it holds the lock. */
  reentrant: boolean;
  /**
   * A holder's release after its hold was taken away (expired, reclaimed) and granted to another:
   * 'refuses' (LockNotHeldError, the new holder keeps the lock) or 'deletes' (the course's blind
   * DEL frees the new holder's lock). Omitted: the hold cannot be taken away from outside.
   */
  lateRelease?: 'refuses' | 'deletes';
  /** 'fires': `lost` aborts once the hold is gone; 'never': the lock cannot learn of a loss. */
  lost: 'fires' | 'never';
}

/** One lock under test, with what it connects to; made afresh for each case. */
export interface LockSubject {
  lock: Lock;
  /** Removes every hold on `resource` behind the holders' backs, as an expiry or a reset would. */
  takeAway?(resource: string): Promise<void>;
  /** Makes `lease` (held for `resource` with LOST_TTL_MS) lose its hold in the way this lock can notice. */
  loseHold?(resource: string, lease: Lease): Promise<void>;
  close?(): Promise<void>;
}

/** Long enough that no lease runs out in the cases that do not want it to. */
const OPTS = { ttlMs: 30_000, waitMs: 30_000, retryMs: 10 } as const;
const CONTENDERS = 50;
/** Short wait for the cases that expect a refusal. */
const SHORT_WAIT_MS = 200;
/** The lease of the `lost` case: short, so a lock that expires leases shows it quickly. */
export const LOST_TTL_MS = 300;

const as = (owner: string, o: Partial<AcquireOptions> = {}): AcquireOptions => ({ ...OPTS, ...o, owner });

/**
 * CONTENDERS owners, all at once, each counting itself in and out of the critical section around
 * a pause. Returns the most ever inside at once and how many got through.
 */
export async function contend(lock: Lock, resource: string, contenders = CONTENDERS): Promise<{ mostInside: number; through: number }> {
  let inside = 0;
  let mostInside = 0;
  let through = 0;
  await Promise.all(
    Array.from({ length: contenders }, (_, i) =>
      withLock(lock, resource, as(`owner-${i}`), async () => {
        inside++;
        mostInside = Math.max(mostInside, inside);
        await sleep(2);
        inside--;
        through++;
      }),
    ),
  );
  return { mostInside, through };
}

export function lockContract(name: string, claims: LockClaims, open: () => Promise<LockSubject>): void {
  describe(`lock contract: ${name}`, () => {
    let subject: LockSubject | undefined;
    const resource = () => `contract-${randomUUID()}`;
    const start = async (): Promise<LockSubject> => (subject = await open());
    afterEach(async () => {
      await subject?.close?.();
      subject = undefined;
    });

    it(`excludes: ${CONTENDERS} owners at once, never two inside`, async () => {
      const { lock } = await start();
      expect(await contend(lock, resource())).toEqual({ mostInside: 1, through: CONTENDERS });
    });

    it('times out: a waiter gives up after waitMs with LockTimeoutError and leaves nothing behind', async () => {
      const { lock } = await start();
      const r = resource();
      const a = await lock.acquire(r, as('A'));
      const t0 = Date.now();
      await expect(lock.acquire(r, as('B', { waitMs: SHORT_WAIT_MS }))).rejects.toBeInstanceOf(LockTimeoutError);
      // It waited (timers may fire a millisecond early), rather than refusing at once.
      expect(Date.now() - t0).toBeGreaterThanOrEqual(SHORT_WAIT_MS - 5);
      await a.release();
      await (await lock.acquire(r, as('B', { waitMs: 5_000 }))).release();
    });

    it('refuses a second release of the same lease, and it frees nobody else', async () => {
      const { lock } = await start();
      const r = resource();
      const a = await lock.acquire(r, as('A'));
      await a.release();
      const b = await lock.acquire(r, as('B', { waitMs: 5_000 }));
      await expect(a.release()).rejects.toBeInstanceOf(LockNotHeldError);
      await expect(lock.acquire(r, as('C', { waitMs: SHORT_WAIT_MS }))).rejects.toBeInstanceOf(LockTimeoutError);
      await b.release();
    });

    if (claims.lateRelease) {
      const late = claims.lateRelease;
      it(
        late === 'refuses'
          ? 'a late release, after the hold was taken away and granted to another, is refused and frees nobody'
          : 'a late release, after the hold was taken away and granted to another, deletes the new holder’s lock (the course’s flaw)',
        async () => {
          const s = await start();
          const r = resource();
          const a = await s.lock.acquire(r, as('A'));
          await s.takeAway?.(r);
          const b = await s.lock.acquire(r, as('B', { waitMs: 5_000 }));
          if (late === 'refuses') {
            await expect(a.release()).rejects.toBeInstanceOf(LockNotHeldError);
            await expect(s.lock.acquire(r, as('C', { waitMs: SHORT_WAIT_MS }))).rejects.toBeInstanceOf(LockTimeoutError);
          } else {
            await a.release();
            // B still thinks it holds the lock, and C gets it too: two holders.
            const c = await s.lock.acquire(r, as('C', { waitMs: SHORT_WAIT_MS }));
            await c.release();
          }
          await b.release().catch(() => undefined);
        },
      );
    }

    if (claims.reentrant) {
      it('re-enters: the same owner acquires again at once, and only its last release frees the lock', async () => {
        const { lock } = await start();
        const r = resource();
        const outer = await lock.acquire(r, as('A'));
        const inner = await lock.acquire(r, as('A', { waitMs: SHORT_WAIT_MS }));
        await inner.release();
        await expect(lock.acquire(r, as('B', { waitMs: SHORT_WAIT_MS }))).rejects.toBeInstanceOf(LockTimeoutError);
        await outer.release();
        await (await lock.acquire(r, as('B', { waitMs: 5_000 }))).release();
      });
    } else {
      it('does not re-enter: the same owner asking again waits for itself until waitMs', async () => {
        const { lock } = await start();
        const r = resource();
        const outer = await lock.acquire(r, as('A'));
        await expect(lock.acquire(r, as('A', { waitMs: SHORT_WAIT_MS }))).rejects.toBeInstanceOf(LockTimeoutError);
        await outer.release();
        await (await lock.acquire(r, as('B', { waitMs: 5_000 }))).release();
      });
    }

    it('issues fencing tokens that grow with every grant, when it claims to (Lock.fencing)', async () => {
      const { lock, takeAway } = await start();
      const r = resource();
      const a = await lock.acquire(r, as('A'));
      if (!lock.fencing) {
        expect(a.fencingToken).toBeUndefined();
        await a.release();
        return;
      }
      const tokenA = await a.fencingToken!();
      await a.release();
      const b = await lock.acquire(r, as('B'));
      const tokenB = await b.fencingToken!();
      expect(tokenB).toBeGreaterThan(tokenA);
      if (takeAway) {
        // A grant made after the hold was taken away (an expiry) must outrank the one it replaced.
        await takeAway(r);
        const c = await lock.acquire(r, as('C', { waitMs: 5_000 }));
        expect(await c.fencingToken!()).toBeGreaterThan(tokenB);
        await c.release();
        await b.release().catch(() => undefined);
      } else {
        await b.release();
      }
    });

    if (claims.lost === 'fires') {
      it('fires lost once the hold is gone', async () => {
        const s = await start();
        const r = resource();
        const a = await s.lock.acquire(r, as('A', { ttlMs: LOST_TTL_MS }));
        expect(a.lost.aborted).toBe(false);
        await s.loseHold?.(r, a);
        expect(await pollUntil(() => a.lost.aborted, 10_000, 10)).toBe(true);
        await a.release().catch(() => undefined);
      });
    } else {
      it('never fires lost, even after its lease ran out (it cannot learn of a loss)', async () => {
        const s = await start();
        const r = resource();
        const a = await s.lock.acquire(r, as('A', { ttlMs: LOST_TTL_MS }));
        await s.takeAway?.(r);
        await sleep(LOST_TTL_MS * 2);
        expect(a.lost.aborted).toBe(false);
        await a.release().catch(() => undefined);
      });
    }
  });
}
