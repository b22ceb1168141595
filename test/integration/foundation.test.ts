// The course's first chapter on real servers: the naive read-then-write loses updates, the
// in-process mutex only helps one instance, and the SQL answers stay exact on three instances
// behind nginx. The oversells are shown by construction (readers that overlap by design), the
// exact counts by the safety checks of ./support/race-checks.ts, liveness by a bound of its own.
import { describe, expect, it } from 'vitest';
import { race, resetStock } from '../../src/load/race.js';
import { sharedCluster } from '../support/cluster.js';
import { getJson } from '../support/lock-helpers.js';
import { expectExactRace, unexpectedAnswers } from '../support/race-checks.js';

const cluster = sharedCluster();
const oneInstance = cluster.instances[0]!;

function raceOn(target: string, strategy: string, opts: { requests: number; initial: number; workMs?: number; connections?: number }) {
  return race({
    target,
    stores: cluster,
    strategy,
    initial: opts.initial,
    requests: opts.requests,
    connections: opts.connections ?? 100,
    params: { ...(opts.workMs && { workMs: opts.workMs }) },
  });
}

// 12 requests sent at once, each reading the count and writing it back minus one 500 ms later: the
// reads land long before the first write, so they read the same count and most writes are lost.
// No lock means no refusal and, with 100 units, no sold out: every request is told it bought one.
const OVERLAPPING = { requests: 12, connections: 12, initial: 100, workMs: 500 };

describe('none: read then write with no lock', () => {
  it.each([
    ['one instance', oneInstance],
    ['nginx', cluster.nginx],
  ])('loses updates (%s): clients are told of more sales than units left the store', async (_, target) => {
    const r = await raceOn(target, 'none', OVERLAPPING);
    expect(unexpectedAnswers(r.byAnswer)).toEqual({});
    expect(r.ok).toBe(OVERLAPPING.requests);
    expect(r.deducted).toBeLessThan(r.ok);
    expect(r.oversold).toBe(r.ok - r.deducted);
    expect(r.oversold).toBeGreaterThan(0);
  });
});

describe('mutex: an in-process lock', () => {
  // The course's run at a fifth of its size: 100 connections, 100 more requests than units.
  it('is exact on one instance: 1100 requests against 1000 units sell exactly 1000', async () => {
    // One process, one first-come-first-served queue: a waiter waits for at most the whole race (a
    // few seconds here), below the 10 s default waitMs, so no request should be refused.
    expectExactRace(await raceOn(oneInstance, 'mutex', { requests: 1100, initial: 1000 }), 'mutex, one instance', 0.01);
  });

  it('oversells on three instances: each has its own mutex', async () => {
    // nginx spreads the 12 requests sent at once over the three instances (round robin); each
    // instance's first holder reads the full count at the same moment as the others' and writes
    // it back minus one 500 ms later: their writes overlap, whatever the order.
    const r = await raceOn(cluster.nginx, 'mutex', OVERLAPPING);
    expect(unexpectedAnswers(r.byAnswer)).toEqual({});
    expect(r.ok).toBe(OVERLAPPING.requests);
    expect(r.oversold).toBeGreaterThan(0);
  });
});

// Refusals allowed per strategy, at the 10 s default waitMs. sql-update never waits (one
// conditional UPDATE): none expected. sql-for-update queues on the row lock: none expected.
// sql-optimistic retries a lost version check with jitter, and with 100 in flight an unlucky
// request can lose until its waitMs: up to about 1 % of answers on a loaded machine (503
// retries_exhausted), bounded at 5 %.
const SQL_BOUNDS = { 'sql-update': 0.01, 'sql-for-update': 0.02, 'sql-optimistic': 0.05 } as const;

describe.each(Object.entries(SQL_BOUNDS))('%s on three instances behind nginx', (strategy, maxRefused) => {
  // 200 units: the same 100 clients contend for every one, so it proves what 1000 would.
  it('sells exactly 200 of 200 units to 220 requests and ends at 0', async () => {
    const r = await raceOn(cluster.nginx, strategy, { requests: 220, initial: 200 });
    expectExactRace(r, `${strategy}, nginx`, maxRefused);
  });

  it('stays exact while work happens inside the critical section', async () => {
    const r = await raceOn(cluster.nginx, strategy, { requests: 300, initial: 200, workMs: 2 });
    expectExactRace(r, `${strategy} workMs 2, nginx`, maxRefused);
  });
});

describe('the HTTP contract', () => {
  const get = async (path: string) => {
    const { status, body } = await getJson(`${cluster.nginx}${path}`);
    return { status, body };
  };

  it('answers a deduction with the strategy and the instance that served it', async () => {
    await resetStock(cluster.nginx, 6);
    const seen = new Set<unknown>();
    for (let i = 0; i < 6; i++) {
      const { status, body } = await get('/check/lock?strategy=sql-update');
      expect(status).toBe(200);
      expect(body).toMatchObject({ ok: true, strategy: 'sql-update' });
      seen.add(body.instance);
    }
    // Each of nginx's two workers round-robins on its own, so two requests in a row may meet the
    // same instance; six cannot all (no worker can send more than one of them to one instance
    // without passing through the others).
    expect(seen.size).toBeGreaterThanOrEqual(2);
    expect(await get('/check/lock?strategy=sql-update')).toEqual({
      status: 409,
      body: { ok: false, error: 'sold_out', strategy: 'sql-update', instance: expect.any(String) },
    });
    expect((await get('/stock')).body).toMatchObject({ mysql: 0, redis: 6 });
  });

  it('rejects bad input with a 400 naming the parameter, and deducts nothing', async () => {
    await resetStock(cluster.nginx, 7);
    const unknown = await get('/check/lock?strategy=bogus');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: 'bad_request', param: 'strategy' });
    expect(unknown.body.valid).toEqual(expect.arrayContaining(['none', 'mutex', 'sql-update', 'sql-for-update', 'sql-optimistic']));
    for (const [query, param] of [
      ['workMs=-1', 'workMs'],
      ['workMs=99999999', 'workMs'],
      ['workMs=soon', 'workMs'],
      ['waitMs=1e3', 'waitMs'],
      ['store=disk', 'store'],
    ]) {
      const r = await get(`/check/lock?strategy=sql-update&${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body.param, query).toBe(param);
    }
    const badCount = await fetch(`${cluster.nginx}/stock/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"count":"lots"}' });
    expect(badCount.status).toBe(400);
    expect(await badCount.json()).toMatchObject({ error: 'bad_request', param: 'count' });
    expect((await get('/stock')).body).toMatchObject({ mysql: 7, redis: 7 });
  });

  it('describes every strategy with its expected outcome', async () => {
    const { body } = await get('/strategies');
    const list = body.strategies as { name: string; expected: { oneInstance: string; threeInstances: string } }[];
    const byName = Object.fromEntries(list.map((s) => [s.name, s.expected]));
    expect(byName.none).toMatchObject({ oneInstance: 'oversells', threeInstances: 'oversells' });
    expect(byName.mutex).toMatchObject({ oneInstance: 'exact', threeInstances: 'oversells' });
    expect(byName['sql-update']).toMatchObject({ oneInstance: 'exact', threeInstances: 'exact' });
  });
});
