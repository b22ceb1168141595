// The course's first chapter, asserted with exact counts on real servers: the naive
// read-then-write loses updates, the in-process mutex only helps one instance, and the SQL
// answers stay exact on three instances behind nginx.
import { describe, expect, it } from 'vitest';
import { race } from '../bench/race.js';
import { sharedCluster } from './support/cluster.js';

const cluster = sharedCluster();
const oneInstance = cluster.instances[0]!;

function raceOn(target: string, strategy: string, opts: { requests: number; initial: number; workMs?: number; waitMs?: number }) {
  return race({
    target,
    stores: cluster,
    strategy,
    initial: opts.initial,
    requests: opts.requests,
    connections: 100,
    params: { ...(opts.workMs && { workMs: opts.workMs }), ...(opts.waitMs && { waitMs: opts.waitMs }) },
  });
}

describe('none: read then write with no lock', () => {
  it('loses updates on one instance: clients are told of more sales than units left the store', async () => {
    // workMs widens the gap between read and write so concurrent readers reliably collide.
    const r = await raceOn(oneInstance, 'none', { requests: 1000, initial: 5000, workMs: 5 });
    expect(r.ok).toBe(1000);
    expect(r.deducted).toBeLessThan(1000);
    expect(r.oversold).toBeGreaterThan(0);
    expect(r.oversold).toBe(r.ok - (r.initial - r.left));
  });

  it('loses updates through nginx', async () => {
    const r = await raceOn(cluster.nginx, 'none', { requests: 1000, initial: 5000, workMs: 5 });
    expect(r.ok).toBe(1000);
    expect(r.oversold).toBeGreaterThan(0);
  });
});

describe('mutex: an in-process lock', () => {
  it('is exact on one instance: 5100 requests against 5000 units sell exactly 5000', async () => {
    const r = await raceOn(oneInstance, 'mutex', { requests: 5100, initial: 5000 });
    expect(r.byStatus).toEqual({ 200: 5000, 409: 100 });
    expect(r.left).toBe(0);
    expect(r.oversold).toBe(0);
  });

  it('oversells on three instances: each has its own mutex', async () => {
    const r = await raceOn(cluster.nginx, 'mutex', { requests: 600, initial: 5000, workMs: 5 });
    expect(r.ok).toBe(600);
    expect(r.oversold).toBeGreaterThan(0);
  });
});

describe.each(['sql-update', 'sql-for-update', 'sql-optimistic'])('%s on three instances behind nginx', (strategy) => {
  it('sells exactly 5000 of 5000 units to 5100 requests and ends at 0', async () => {
    // A generous wait bound: on a loaded machine a few optimistic retries can outlast the 10 s
    // default and answer 503 retries_exhausted, which is bounded behaviour, not a wrong count.
    const r = await raceOn(cluster.nginx, strategy, { requests: 5100, initial: 5000, waitMs: 25_000 });
    expect(r.byStatus).toEqual({ 200: 5000, 409: 100 });
    expect(r.noAnswer).toBe(0);
    expect(r.left).toBe(0);
    expect(r.oversold).toBe(0);
  });

  it('stays exact while work happens inside the critical section', async () => {
    const r = await raceOn(cluster.nginx, strategy, { requests: 300, initial: 200, workMs: 2 });
    expect(r.byStatus).toEqual({ 200: 200, 409: 100 });
    expect(r.left).toBe(0);
  });
});

describe('the HTTP contract', () => {
  const get = async (path: string) => {
    const res = await fetch(`${cluster.nginx}${path}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('answers a deduction with the strategy and the instance that served it', async () => {
    await fetch(`${cluster.nginx}/stock/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"count":6}' });
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
    await fetch(`${cluster.nginx}/stock/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"count":7}' });
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
