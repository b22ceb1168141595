// The library baselines as strategies, on three instances behind nginx (the shared cluster): the
// same race as stocklab's locks, and work that outlasts the lease (each library renews its lease
// while held, so it stays exact). Their expected outcomes in the catalog are what these measure.
import { describe, expect, it } from 'vitest';
import { race } from '../../src/load/race.js';
import { getJson } from '../support/lock-helpers.js';
import { sharedCluster } from '../support/cluster.js';
import { expectExactRace } from '../support/race-checks.js';

const cluster = sharedCluster();

/**
 * The race each library gets. The redis-semaphore locks poll: under 50-way contention an unlucky
 * waiter can lose every poll until the default 10 s waitMs, so their refusals are bounded at 10 %.
 * The redlock package's own retry loop keeps a failed attempt's partial votes while it retries, and
 * under 50-way contention on three instances it all but stops (measured: 327 of 330 refused, 3 sold,
 * 87 s): that is the figure the catalog's note and the README give. Here it races at 3 connections
 * for 10 units (60 for 50 at 5 took 40 s of the suite and proved nothing more: 8 refused; 22 for 20
 * at 5 took 14–28 s, 36 % refused), its refusals bounded at half; safety is asserted exactly either way.
 */
const RACES: Record<string, { initial: number; requests: number; connections: number }> = {
  'lib-redis-semaphore': { initial: 300, requests: 330, connections: 50 },
  'lib-redlock-mutex': { initial: 300, requests: 330, connections: 50 },
  'lib-redlock': { initial: 10, requests: 11, connections: 3 },
};
const REFUSAL_BOUND: Record<string, number> = { 'lib-redis-semaphore': 0.1, 'lib-redlock-mutex': 0.1, 'lib-redlock': 0.5 };

describe.each(Object.keys(RACES))('%s', (strategy) => {
  const size = RACES[strategy]!;
  it(`${size.requests} requests for ${size.initial} units through nginx, ${size.connections} connections: exact`, async () => {
    const r = await race({ target: cluster.nginx, stores: cluster, strategy, ...size, maxSeconds: 90 });
    expectExactRace(r, strategy, REFUSAL_BOUND[strategy]);
  });

  it('work longer than the lease: the library renews it, and it stays exact', async () => {
    // Renewed at 0.8 × ttl (redis-semaphore) or 400 ms before expiry (redlock): a renewal the loaded
    // machine delays past the lease is a refusal (503 lock_lost), not an oversell; bounded at half.
    // lib-redlock one request at a time: its retries under contention are the race's subject, not this one's.
    // Two holds of twice the lease each, and a third request that finds the stock sold (as redisson.test.ts's).
    const connections = strategy === 'lib-redlock' ? 1 : 3;
    const r = await race({
      target: cluster.nginx,
      stores: cluster,
      strategy,
      initial: 2,
      requests: 3,
      connections,
      maxSeconds: 60,
      params: { workMs: 1_000, ttlMs: 500 },
    });
    expectExactRace(r, `${strategy}, work > ttl`, 0.5);
  });
});

it('the libraries issue no fencing token: fenced=1 is a 400', async () => {
  for (const strategy of ['lib-redis-semaphore', 'lib-redlock-mutex', 'lib-redlock']) {
    const r = await getJson(`${cluster.nginx}/check/lock?strategy=${encodeURIComponent(strategy)}&fenced=1`);
    expect([r.status, r.body.param], strategy).toEqual([400, 'fenced']);
  }
});
