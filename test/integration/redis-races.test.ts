// The Redis strategies on three instances behind nginx (the shared cluster): exact counts, and
// what happens when the work outlasts the lease. RedLock's race lives in redlock.test.ts.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { race, resetStock } from '../../src/load/race.js';
import { unitsLeft } from '../../src/cluster/stores.js';
import { sharedCluster } from '../support/cluster.js';
import type { StoreKind } from '../../src/stock/store.js';
import { sleep } from '../../src/time.js';
import { checkMany, count, stockLockKey } from '../support/redis-helpers.js';
import { expectExactRace, expectLive, tally, unexpectedAnswers } from '../support/race-checks.js';

const info = sharedCluster();

describe('exact on three instances behind nginx', () => {
  async function exactRace(strategy: string, store: StoreKind, initial: number, requests: number, maxRefused: number): Promise<void> {
    const r = await race({ target: info.nginx, stores: info, strategy, store, initial, requests, connections: 100, maxSeconds: 90 });
    expectExactRace(r, `${strategy}/${store}`, maxRefused);
  }

  // 220 requests for 200 units, 100 clients each: every unit still contended by 100, so it proves
  // the exactness the course's 5100 for 5000 does, in a fraction of the time. Refusals allowed, at
  // the 10 s default waitMs: 1 % for Lua (it never waits: none expected); 2 % for WATCH (retries
  // until waitMs) and none seen; 5 % for the locks whose waiters poll (SETNX family, reentrant,
  // watchdog) or all wake and race on a release (pubsub). Those are unfair: a waiter can lose every
  // round until its waitMs, more often the slower the machine (0.4 % at 80 req/s here). A figure,
  // not a bug; "safe but 73 % refused" would be.
  it.each([
    ['redis-lua-decr', 'redis', 220, 200, 0.01],
    ['redis-watch', 'redis', 220, 200, 0.02],
    ['redis-watchdog', 'mysql', 220, 200, 0.05],
    ['redis-pubsub', 'mysql', 220, 200, 0.05],
    ['redis-setnx', 'mysql', 220, 200, 0.05],
    ['redis-setnx-ex', 'mysql', 220, 200, 0.05],
    ['redis-owned', 'mysql', 220, 200, 0.05],
    ['redis-reentrant', 'mysql', 220, 200, 0.05],
    // The same critical section on the Redis stock key.
    ['redis-pubsub', 'redis', 220, 200, 0.05],
    ['redis-reentrant', 'redis', 220, 200, 0.05],
  ] as const)('%s (store %s): %i requests for %i units', async (strategy, store, requests, units, maxRefused) => {
    await exactRace(strategy, store, units, requests, maxRefused);
  });
});

describe('work longer than the lease (workMs 250 > ttlMs 100)', () => {
  // Oversold by construction: a holder reads, its lease runs out 150 ms before it writes, a waiter
  // polling every retryMs (20 ms) takes the lock in that gap and reads the same count.
  const slow = { workMs: 250, ttlMs: 100 };
  const INITIAL = 100;

  async function oversoldAfter(strategy: string, requests: number, concurrency: number, params: Record<string, number>, afterReset?: () => void) {
    await resetStock(info.nginx, INITIAL);
    afterReset?.();
    const answers = await checkMany(info.nginx, strategy, params, requests, concurrency);
    const left = await unitsLeft(info, 'mysql');
    const byAnswer = tally(answers);
    expect(unexpectedAnswers(byAnswer), strategy).toEqual({});
    const ok = count(answers, (a) => a.status === 200);
    return { answers, byAnswer, ok, oversold: ok - (INITIAL - left) };
  }

  // A lock changes hands about every ttlMs here, so 40 requests take about 4 s: a waiter hits the
  // 10 s default waitMs only if it loses every poll for most of the run. 10 % (4 of 40) is a bound
  // that only a stalled machine reaches; the oversell is asserted on the answers that did sell.
  const LIVE_BOUND = 0.1;

  it('redis-setnx-ex: a late blind DEL frees the lock for others, and it oversells', async () => {
    const { byAnswer, oversold } = await oversoldAfter('redis-setnx-ex', 40, 12, slow);
    expectLive({ byAnswer }, 'redis-setnx-ex, work > ttl', LIVE_BOUND);
    expect(oversold).toBeGreaterThan(0);
  });

  describe('redis-owned', () => {
    // The work (250 ms) outlasts every lease (100 ms), so no owner still holds its lock when it
    // releases: any DEL Redis reports on the lock key (keyspace notifications) would be a delete
    // of another holder's lock. With the owner check there must be none; a blind DEL makes many.
    let watcher: Redis;
    const events: string[] = [];
    beforeAll(async () => {
      watcher = new Redis(info.redis);
      await watcher.config('SET', 'notify-keyspace-events', 'Kgx');
      await watcher.subscribe(`__keyspace@0__:${stockLockKey('string')}`);
      watcher.on('message', (_channel: string, event: string) => events.push(event));
    });
    afterAll(async () => {
      watcher.disconnect();
      const admin = new Redis(info.redis);
      await admin.config('SET', 'notify-keyspace-events', '');
      admin.disconnect();
    });

    it('never deletes another holder’s lock, yet oversells through expiry', async () => {
      const { answers, byAnswer, ok, oversold } = await oversoldAfter('redis-owned', 40, 12, slow, () => (events.length = 0));
      await sleep(200); // let the last notifications arrive
      expectLive({ byAnswer }, 'redis-owned, work > ttl', LIVE_BOUND);
      // Every lock that was granted expired under its holder (refused requests held none).
      expect(count(answers, (a) => a.warning === 'lock_expired_before_release')).toBe(ok);
      expect(count(events, (e) => e === 'del')).toBe(0);
      expect(count(events, (e) => e === 'expired')).toBe(ok);
      expect(oversold).toBeGreaterThan(0);
    });
  });

  it('redis-watchdog: the renewed lease outlives the work, and it stays exact', async () => {
    const { answers, byAnswer, oversold } = await oversoldAfter('redis-watchdog', 10, 5, { workMs: 400, ttlMs: 150 });
    expect(oversold).toBe(0);
    // A renewal that a stalled machine sends too late lets a lease end after the write and before
    // the release (a 200 with a warning, nothing oversold): that is liveness, bounded like refusals.
    const warned = answers.filter((a) => a.warning !== undefined);
    console.log(
      `[liveness] redis-watchdog, work > ttl: ${warned.length} of ${answers.length} answers warned ${JSON.stringify(warned.map((a) => a.warning))} (bound 1)`,
    );
    expect(warned.length).toBeLessThanOrEqual(1);
    // The whole queue's work is 10 × 400 ms = 4 s, well below the 10 s default waitMs: no waiter
    // should be refused; one (10 %) is allowed for a stalled machine.
    expectLive({ byAnswer }, 'redis-watchdog, work > ttl', 0.1);
  });
});
