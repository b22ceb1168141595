// Redisson's primitives beyond the mutex (course §2.10) on three instances behind nginx (the shared
// cluster): redis-fair and redis-multi as deduction strategies, and the course's clicks, /test/read
// and /test/write, /test/semaphore, /test/latch and /test/countdown, checked from what each answer
// reports (holders seen at once, counted cluster-wide in Redis, and how long it waited).
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkUrl, race, resetStock } from '../../src/load/race.js';
import { unitsLeft } from '../../src/cluster/stores.js';
import { latchKeys, readWriteLockKeys } from '../../src/locks/redis/keys.js';
import { LATCH, RW_LOCK } from '../../src/demos/redisson.js';
import { pollUntil } from '../../src/time.js';
import { getJson } from '../support/lock-helpers.js';
import { sharedCluster } from '../support/cluster.js';
import { expectDocumented, expectExactRace, expectLive, tally } from '../support/race-checks.js';

const cluster = sharedCluster();
let redis: Redis;
beforeAll(async () => {
  redis = new Redis(cluster.redis, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
});
afterAll(() => redis.disconnect());

type Body = Record<string, unknown>;
interface Answered {
  status: number;
  body: Body;
  ms: number;
}

/** `total` GETs of `url`, `concurrency` at a time, every answer kept. */
async function getMany(url: string | ((i: number) => string), total: number, concurrency: number): Promise<Answered[]> {
  const answers: Answered[] = [];
  let started = 0;
  const worker = async () => {
    while (started < total) {
      const i = started++;
      answers.push(await getJson(typeof url === 'string' ? url : url(i)));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return answers;
}

/**
 * Work three times the lease, three requests at once for two units: without renewal each lease
 * would run out mid-work and the next waiter would read the same count. A renewal the loaded
 * machine delays past the lease is a refusal (503 lock_lost), not an oversell: bounded at half.
 */
const WORK_OVER_TTL = { initial: 2, requests: 3, connections: 3, maxSeconds: 60, params: { workMs: 600, ttlMs: 200 } };

const reset = (count = 0) => resetStock(cluster.nginx, count);
const at = (path: string) => `${cluster.nginx}${path}`;

describe('redis-fair', () => {
  // The course's 1000 units for 1100 requests at a third of the size, as the libraries' races (library.test.ts).
  it('330 requests for 300 units through nginx, 50 at a time: exact, and granted in line order (0 inversions)', async () => {
    const initial = 300;
    await reset(initial);
    const t0 = Date.now();
    const answers = await getMany(checkUrl(cluster.nginx, 'redis-fair', undefined), 330, 50);
    const seconds = (Date.now() - t0) / 1000;
    const left = await unitsLeft(cluster, 'mysql');
    const sold = answers.filter((a) => a.status === 200);
    expectDocumented(answers.map((a) => ({ status: a.status, error: a.body.error as string | undefined })));
    expect({ sold: sold.length, deducted: initial - left }).toEqual({ sold: initial, deducted: initial });
    const byAnswer = tally(answers.map((a) => ({ status: a.status, error: a.body.error as string | undefined })));
    const times = answers.map((a) => a.ms).sort((a, b) => a - b);
    expectLive({ byAnswer, rps: answers.length / seconds, p99Ms: times[Math.floor(times.length * 0.99)] }, 'redis-fair', 0.02);

    // In the order the grants were made (their fencing tokens), the tickets drawn on joining the line only grow.
    const tickets = sold.map((a) => a.body.ticket as { queued: number; granted: number }).sort((a, b) => a.granted - b.granted);
    expect(tickets).toHaveLength(initial);
    const inversions = tickets.filter((t, i) => i > 0 && t.queued < tickets[i - 1]!.queued).length;
    const instances = new Set(sold.map((a) => a.body.instance));
    console.log(`[fair] ${tickets.length} grants from ${instances.size} instances, ${inversions} inversions of the line's order`);
    expect(inversions).toBe(0);
    expect(instances.size).toBe(3);
  });

  it('work longer than the lease: the watchdog renews it, and it stays exact', async () => {
    const r = await race({ target: cluster.nginx, stores: cluster, strategy: 'redis-fair', ...WORK_OVER_TTL });
    expectExactRace(r, 'redis-fair, work > ttl', 0.5);
  });
});

describe('redis-multi', () => {
  // Three locks per sale make it slow (34 req/s here; 330 for 300 took 10 s): sized for proof, not
  // for show, 50 clients still fight over every unit.
  it('110 requests for 100 units through nginx, 50 at a time: exact', async () => {
    const r = await race({ target: cluster.nginx, stores: cluster, strategy: 'redis-multi', initial: 100, requests: 110, connections: 50, maxSeconds: 90 });
    // Its first part is the polling watchdog lock: as unfair as redis-watchdog (redis-races.test.ts).
    expectExactRace(r, 'redis-multi', 0.05);
  });

  it('work longer than the lease: every part is renewed, and it stays exact', async () => {
    const r = await race({ target: cluster.nginx, stores: cluster, strategy: 'redis-multi', ...WORK_OVER_TTL });
    expectExactRace(r, 'redis-multi, work > ttl', 0.5);
  });
});

interface Seen {
  read: number;
  write: number;
}

it('redis-fair and redis-multi issue fencing tokens from the main Redis: fenced=1 sells', async () => {
  await reset(2);
  for (const strategy of ['redis-fair', 'redis-multi']) {
    const r = await getJson(`${checkUrl(cluster.nginx, strategy, undefined)}&fenced=1`);
    expect([r.status, r.body.ok], strategy).toEqual([200, true]);
  }
});

describe('/test/read and /test/write', () => {
  beforeEach(() => reset());

  const hold = (mode: 'read' | 'write', workMs: number) => getJson(at(`/test/${mode}?workMs=${workMs}`));
  const untilMode = async (mode: string) =>
    expect(await pollUntil(async () => (await redis.hget(readWriteLockKeys(RW_LOCK).lock, 'mode')) === mode, 10_000, 5)).toBe(true);

  it('two writers wait for each other; readers do not', async () => {
    const workMs = 300;
    const writers = await Promise.all([hold('write', workMs), hold('write', workMs)]);
    const readers = await Promise.all([hold('read', workMs), hold('read', workMs), hold('read', workMs)]);
    for (const a of [...writers, ...readers]) expect(a.status, JSON.stringify(a.body)).toBe(200);
    const waited = (as: { body: Body }[]) => as.map((a) => a.body.waitedMs as number).sort((x, y) => x - y);
    console.log(`[rw] writers waited ${waited(writers).join(', ')} ms; readers ${waited(readers).join(', ')} ms (work ${workMs} ms)`);
    // One writer waited out the other's work; the peak of readers seen at once shows they overlapped.
    expect(waited(writers)[1]).toBeGreaterThanOrEqual(workMs - 50);
    expect(writers.map((a) => a.body.holdersSeen)).toEqual([
      { read: 0, write: 1 },
      { read: 0, write: 1 },
    ]);
    expect(Math.max(...readers.map((a) => (a.body.holdersSeen as Seen).read))).toBeGreaterThan(1);
  });

  it('a reader that comes after a writer waits for it', async () => {
    const writer = hold('write', 500);
    await untilMode('write');
    const reader = await hold('read', 0);
    expect(reader.status).toBe(200);
    expect(reader.body.waitedMs as number).toBeGreaterThanOrEqual(200);
    expect((await writer).status).toBe(200);
  });

  it('writers and readers at once on three instances: one writer at a time, never beside a reader', async () => {
    const answers = await getMany((i) => at(`/test/${i % 3 === 0 ? 'write' : 'read'}?workMs=100`), 15, 15);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const seen = (mode: string) => answers.filter((a) => a.body.mode === mode).map((a) => a.body.holdersSeen as Seen);
    expect(seen('write').filter((s) => s.write !== 1 || s.read !== 0)).toEqual([]);
    expect(seen('read').filter((s) => s.write !== 0)).toEqual([]);
    console.log(`[rw] mixed: most readers seen at once ${Math.max(...seen('read').map((s) => s.read))}`);
  });

  it('bad parameters are 400s naming them; HEAD changes nothing', async () => {
    for (const [query, param] of [
      ['workMs=-1', 'workMs'],
      ['waitMs=x', 'waitMs'],
      ['mode=read', 'mode'],
    ]) {
      const r = await getJson(at(`/test/read?${query}`));
      expect([r.status, r.body.param], query).toEqual([400, param]);
    }
    expect((await fetch(at('/test/write'), { method: 'HEAD' })).status).toBe(405);
  });
});

describe('/test/semaphore', () => {
  beforeEach(() => reset());

  it.each([
    ['plain', 50, ''],
    ['permit-expirable', 30, '&expirable=1'],
  ])('%s: 3 permits, %i callers at once: never more than 3 holders', async (_kind, callers, extra) => {
    const answers = await getMany(at(`/test/semaphore?workMs=50${extra}`), callers, callers);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(new Set(answers.map((a) => a.body.permits))).toEqual(new Set([3]));
    const peak = Math.max(...answers.map((a) => a.body.holdersSeen as number));
    console.log(`[semaphore${extra}] ${callers} callers, at most ${peak} holders seen at once`);
    expect(peak).toBeLessThanOrEqual(3);
    expect(peak).toBeGreaterThan(1);
  });

  it('the first trySetPermits wins until a reset clears it', async () => {
    expect((await getJson(at('/test/semaphore?permits=2'))).body).toMatchObject({ permits: 2, permitsSetByThisCall: true });
    expect((await getJson(at('/test/semaphore?permits=5'))).body).toMatchObject({ permits: 2, permitsSetByThisCall: false });
    await reset();
    expect((await getJson(at('/test/semaphore?permits=5'))).body).toMatchObject({ permits: 5, permitsSetByThisCall: true });
  });

  it('a wait that runs out is a 503 lock_timeout; bad parameters are 400s', async () => {
    const holder = getJson(at('/test/semaphore?permits=1&workMs=1000'));
    expect(await pollUntil(async () => (await getJson(at('/test/semaphore?permits=1&waitMs=0'))).status === 503, 5_000, 20)).toBe(true);
    expect((await getJson(at('/test/semaphore?waitMs=100'))).body).toMatchObject({ error: 'lock_timeout' });
    expect((await holder).status).toBe(200);
    for (const [query, param] of [
      ['permits=0', 'permits'],
      ['expirable=2', 'expirable'],
      ['workMs=1e3', 'workMs'],
    ]) {
      const r = await getJson(at(`/test/semaphore?${query}`));
      expect([r.status, r.body.param], query).toEqual([400, param]);
    }
  });
});

describe('/test/latch and /test/countdown', () => {
  beforeEach(() => reset());

  it('a waiting /test/latch answers only after six /test/countdown calls, and soon after the sixth', async () => {
    let answered = false;
    const latch = getJson(at('/test/latch')).then((r) => ((answered = true), r));
    // Armed by the latch's own trySetCount(6) before it waits.
    expect(await pollUntil(async () => (await redis.get(latchKeys(LATCH).count)) === '6', 10_000, 5)).toBe(true);
    for (let left = 5; left >= 1; left--) {
      expect((await getJson(at('/test/countdown'))).body).toMatchObject({ left, open: false, armedByThisCall: false });
    }
    expect(answered).toBe(false);
    const t0 = Date.now();
    expect((await getJson(at('/test/countdown'))).body).toMatchObject({ left: 0, open: true });
    const opened = await latch;
    const ms = Date.now() - t0;
    console.log(`[latch] answered ${ms} ms after the sixth countdown (bound 3000 ms)`);
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({ open: true, armedByThisCall: true });
    expect(ms).toBeLessThan(3_000);
  });

  it('a latch that stays shut is a 503 lock_timeout after waitMs; a reset disarms it', async () => {
    expect((await getJson(at('/test/countdown?count=2'))).body).toMatchObject({ left: 1, armedByThisCall: true });
    const shut = await getJson(at('/test/latch?waitMs=200'));
    expect([shut.status, shut.body.error]).toEqual([503, 'lock_timeout']);
    await reset();
    expect((await getJson(at('/test/countdown'))).body).toMatchObject({ left: 5, armedByThisCall: true });
    expect((await getJson(at('/test/latch?count=0'))).body.param).toBe('count');
  });
});
