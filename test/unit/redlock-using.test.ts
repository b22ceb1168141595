// The redlock package's own retry loop pauses retryDelay ± retryJitter (floored) between tries.
// The settings LibRedlockUsingLock hands it must make even the shortest pauses span waitMs, or a
// waiter gives up before its wait has run out.
import { describe, expect, it } from 'vitest';
import { LibRedlockUsingLock } from '../../src/locks/library/redlock-using.js';
import type { Redlock } from '../../src/locks/redis/redlock/package.js';

interface RetrySettings {
  retryDelay: number;
  retryJitter: number;
  retryCount: number;
}

/** The settings the lock passes for one acquire; the stand-in refuses at once. */
async function settingsFor(waitMs: number, retryMs: number): Promise<RetrySettings> {
  let seen: RetrySettings | undefined;
  const redlock = {
    using: (_keys: string[], _ttl: number, settings: RetrySettings) => {
      seen = settings;
      return Promise.reject(new Error('refused'));
    },
  } as unknown as Redlock;
  const lock = new LibRedlockUsingLock(redlock);
  await lock.acquire('r', { owner: 'A', ttlMs: 30_000, waitMs, retryMs }).catch((e: unknown) => e);
  if (!seen) throw new Error('using() was not called');
  return seen;
}

/** The package's pause: retryDelay + floor((2·random − 1) · retryJitter), at least 0. */
const shortestPause = (s: RetrySettings) => Math.max(0, s.retryDelay + Math.floor(-1 * s.retryJitter));
const longestPause = (s: RetrySettings) => s.retryDelay + Math.floor(0.999999 * s.retryJitter);

describe('LibRedlockUsingLock retry settings', () => {
  for (const [waitMs, retryMs] of [
    [200, 10],
    [5_000, 10],
    [1_000, 50],
    [300, 7],
    [30_000, 100],
  ] as const) {
    it(`waitMs ${waitMs}, retryMs ${retryMs}: the shortest pauses still span waitMs, the longest under 1.5 × waitMs`, async () => {
      const s = await settingsFor(waitMs, retryMs);
      expect(s.retryDelay).toBe(retryMs);
      expect(s.retryCount * shortestPause(s)).toBeGreaterThanOrEqual(waitMs);
      expect(s.retryCount * longestPause(s)).toBeLessThan(1.5 * waitMs + retryMs);
    });
  }
});
