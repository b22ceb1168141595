// A dependency that goes away must produce a fast, named 503 — never a hung request, never a
// half-applied change — and the instance must recover by itself when it returns.
import { describe, expect, it } from 'vitest';
import { resetStock } from '../../src/load/race.js';
import { unitsLeft } from '../../src/cluster/stores.js';
import { freezeRedis } from '../../faults/redis-inspect.js';
import { isStopped, resume } from '../../faults/process-state.js';
import { pollUntil } from '../../src/time.js';
import { withOwnCluster } from '../support/cluster.js';
import { getJson } from '../support/lock-helpers.js';
import { holdRowLock } from '../support/row-lock.js';

// A short Redis command timeout, so the reply delayed below outlives it quickly; the fault hooks, so
// a request can stop its instance at a point of the deduction (pause=...).
const REDIS_COMMAND_TIMEOUT_MS = 1_000;
const own = withOwnCluster({ instances: 1, instanceEnv: { REDIS_COMMAND_TIMEOUT_MS: String(REDIS_COMMAND_TIMEOUT_MS), FAULT_INJECTION: '1' } });

describe('a fresh cluster', () => {
  it('starts with the course’s 5000 units in MySQL and in Redis', async () => {
    const { info } = own.current;
    expect(await unitsLeft(info, 'mysql')).toBe(5000);
    expect(await unitsLeft(info, 'redis')).toBe(5000);
  });
});

describe('a row lock held elsewhere', () => {
  it('bounds the sql-for-update wait by waitMs: 503 lock_timeout, nothing deducted', async () => {
    const { info } = own.current;
    const base = info.instances[0]!;
    await resetStock(base, 10);
    const holder = await holdRowLock(info.mysql);
    try {
      const r = await getJson(`${base}/check/lock?strategy=sql-for-update&waitMs=1000`);
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ ok: false, error: 'lock_timeout' });
      expect(r.ms).toBeLessThan(5_000);
    } finally {
      await holder.release();
    }
    expect(await unitsLeft(info, 'mysql')).toBe(10);
    expect((await getJson(`${base}/check/lock?strategy=sql-for-update`)).status).toBe(200);
  });
});

describe('MySQL stopped', () => {
  it('answers 503 mysql_unavailable fast for every MySQL strategy, then recovers when MySQL returns', async () => {
    const { info, servers } = own.current;
    const base = info.instances[0]!;
    await resetStock(base, 100);

    await servers.mysql.stop();
    try {
      for (const strategy of ['none', 'mutex', 'sql-update', 'sql-for-update', 'sql-optimistic']) {
        const r = await getJson(`${base}/check/lock?strategy=${encodeURIComponent(strategy)}`);
        expect(r.status, strategy).toBe(503);
        expect(r.body, strategy).toMatchObject({ ok: false, error: 'mysql_unavailable' });
        expect(r.ms, strategy).toBeLessThan(5_000);
      }
      const health = await getJson(`${base}/health`);
      expect(health.status).toBe(503);
      expect(health.body).toMatchObject({ checks: { mysql: false } });
    } finally {
      await servers.mysql.start();
    }

    // The pool reconnects on its own; nothing was deducted while MySQL was away.
    expect(await unitsLeft(info, 'mysql')).toBe(100);
    const after = await getJson(`${base}/check/lock?strategy=sql-update`);
    expect(after.status).toBe(200);
    expect(await unitsLeft(info, 'mysql')).toBe(99);
  });
});

describe('Redis stopped', () => {
  it('answers 503 redis_unavailable fast on the Redis store and refuses a reset without touching MySQL', async () => {
    const { info, servers } = own.current;
    const base = info.instances[0]!;
    await resetStock(base, 50);

    await servers.redis.stop();
    try {
      const r = await getJson(`${base}/check/lock?strategy=none&store=redis`);
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ ok: false, error: 'redis_unavailable' });
      expect(r.ms).toBeLessThan(5_000);

      // MySQL strategies do not depend on Redis and go on working.
      expect((await getJson(`${base}/check/lock?strategy=sql-update`)).status).toBe(200);

      // A reset that cannot reach Redis changes neither store.
      await expect(resetStock(base, 9)).rejects.toThrow(/503 .*redis_unavailable/);
      expect(await unitsLeft(info, 'mysql')).toBe(49);
    } finally {
      await servers.redis.start();
    }
  });
});

describe('a Redis reply delayed past the command timeout (redis-server SIGSTOPped, then SIGCONT)', () => {
  it('answers 503 outcome_unknown, not "unavailable": the unit did go, and the request id accounts for it', async () => {
    const { info, servers } = own.current;
    const base = info.instances[0]!;
    // The instance's Redis connection may still be coming back from the restart above: wait until a
    // reset goes through, then until a deduction sells.
    expect(
      await pollUntil(
        () =>
          resetStock(base, 11).then(
            () => true,
            () => false,
          ),
        10_000,
        100,
      ),
    ).toBe(true);
    expect(await pollUntil(async () => (await getJson(`${base}/check/lock?strategy=redis-lua-decr`)).status === 200, 10_000, 100)).toBe(true);
    const pid = servers.redis.pid!;
    process.kill(pid, 'SIGSTOP');
    let answer: { status: number; error?: unknown };
    try {
      // The script reaches the stopped server's socket and waits there, applied on SIGCONT.
      const res = await fetch(`${base}/check/lock?strategy=redis-lua-decr`, { headers: { 'X-Request-Id': 'delayed-reply' } });
      answer = { status: res.status, error: ((await res.json()) as { error?: unknown }).error };
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect(answer).toEqual({ status: 503, error: 'outcome_unknown' });
    expect(await pollUntil(async () => (await unitsLeft(info, 'redis')) === 9, 5_000)).toBe(true);
    const sales = await getJson(`${base}/sales`);
    expect(sales.body).toMatchObject({ sales: { 'delayed-reply': 1 } });
  });
});

describe('a pool-exhaustion attack (every pooled connection waiting on a row lock)', () => {
  it('leaves /health answering within 1 s, and a deduction that finds no free connection gets a bounded 503 busy', async () => {
    const { info } = own.current;
    const base = info.instances[0]!;
    await resetStock(base, 100);
    const holder = await holdRowLock(info.mysql);
    const POOL = 20; // MYSQL_POOL_SIZE's default
    let attack: Promise<unknown> = Promise.resolve();
    try {
      // Each waits on the row lock (up to waitMs, in whole seconds) while holding a pooled connection.
      attack = Promise.all(Array.from({ length: POOL + 2 }, () => getJson(`${base}/check/lock?strategy=sql-for-update&waitMs=8000`)));
      // The pool is full once every pooled connection waits on the row lock.
      expect(await pollUntil(async () => (await holder.lockWaits()) >= POOL, 5_000)).toBe(true);
      const health = await getJson(`${base}/health`);
      console.log(`[pool] /health under attack: ${health.status} in ${health.ms} ms`);
      expect(health.ms).toBeLessThan(1_000);
      const starved = await getJson(`${base}/check/lock?strategy=sql-update`);
      console.log(`[pool] a deduction behind the full pool: ${starved.status} ${String((starved.body as { error?: unknown }).error)} in ${starved.ms} ms`);
      expect(starved.status).toBe(503);
      expect(starved.body).toMatchObject({ error: 'busy' });
      expect(starved.ms).toBeLessThan(7_000);
    } finally {
      await holder.release();
      await attack;
    }
    // Nothing half-applied: the attackers sold at most what left the store.
    const left = await unitsLeft(info, 'mysql');
    expect((await getJson(`${base}/check/lock?strategy=sql-update`)).status).toBe(200);
    expect(await unitsLeft(info, 'mysql')).toBe(left - 1);
  });
});

describe('Redis frozen between a committed sale and its lock release (pause=before-write, then redis-server SIGSTOPped)', () => {
  it('answers 200 with warning lock_release_failed, never a 503: the unit left MySQL and the request id has its sale', async () => {
    const { info, servers } = own.current;
    const base = info.instances[0]!;
    // Redis was stopped and frozen above: wait until a reset goes through and a Redis lock sells.
    expect(
      await pollUntil(
        () =>
          resetStock(base, 20).then(
            () => true,
            () => false,
          ),
        10_000,
        100,
      ),
    ).toBe(true);
    expect(await pollUntil(async () => (await getJson(`${base}/check/lock?strategy=redis-owned&store=mysql`)).status === 200, 10_000, 100)).toBe(true);
    const before = await unitsLeft(info, 'mysql');
    const app = servers.instances[0]!.pid!;
    const redis = servers.redis.pid!;
    // The instance stops itself holding the Redis lock, its read done and its MySQL write not yet sent.
    const answer = getJson(`${base}/check/lock?strategy=redis-owned&store=mysql&pause=before-write`, { 'X-Request-Id': 'release-fails' });
    try {
      expect(await pollUntil(() => isStopped(app), 10_000, 5)).toBe(true);
      await freezeRedis(redis);
      // It writes to MySQL, then its release waits on the frozen Redis until the command timeout.
      resume(app);
      const { status, body, ms } = await answer;
      console.log(`[outage] a sale whose release met a frozen Redis: ${status} ${String(body.warning ?? body.error)} ${ms} ms after it was sent`);
      expect({ status, warning: body.warning }).toEqual({ status: 200, warning: 'lock_release_failed' });
    } finally {
      resume(redis);
      if (isStopped(app)) resume(app);
    }
    // The sale happened: its unit left MySQL, recorded under its id.
    expect(await unitsLeft(info, 'mysql')).toBe(before - 1);
    expect((await getJson(`${base}/sales`)).body.sales).toMatchObject({ 'release-fails': 1 });
  });
});
