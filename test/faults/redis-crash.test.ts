// Lock holders that die (a private cluster, since instances are killed): what each Redis lock
// leaves behind, and what nginx does with a deduction whose instance died after writing. RedLock, whose masters are stopped and killed too, has its own file
// (test/faults/redlock.test.ts).
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkUrl, resetStock } from '../../src/load/race.js';
import { unitsLeft } from '../../src/cluster/stores.js';
import { httpGet } from '../../src/cluster/probes.js';
import { pollUntil, sleep } from '../../src/time.js';
import { withOwnCluster } from '../support/cluster.js';
import { expectDocumented, tally } from '../support/race-checks.js';
import { expectSalesMatchAnswers, KeepAliveLoad } from '../support/keepalive-load.js';
import { readSales } from '../../faults/service.js';
import { RW_LOCK } from '../../src/demos/redisson.js';
import { readWriteLockKeys } from '../../src/locks/redis/keys.js';
import { check, checkMany, stockLockKey, untilKeyExists } from '../support/redis-helpers.js';

const own = withOwnCluster({ instances: 3 });

describe('a lock holder killed mid-work (SIGKILL of its instance)', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(own.current.info.redis);
  });
  afterAll(() => redis.disconnect());

  /** Sends a long request to instance 0, waits until it holds the lock, then kills instance 0. */
  async function killHolder(strategy: string, lockKey: string, ttlMs: number): Promise<void> {
    const { info, servers } = own.current;
    const holder = servers.instances[0]!;
    if (holder.pid === undefined) await holder.start();
    const pending = check(info.instances[0]!, strategy, { workMs: 5_000, ttlMs }).catch(() => undefined);
    await untilKeyExists(redis, lockKey);
    await holder.kill();
    await pending;
  }

  it('redis-setnx: the lock stays forever, every later request times out (503 lock_timeout)', async () => {
    const { info } = own.current;
    await resetStock(info.instances[1]!, 10);
    await killHolder('redis-setnx', stockLockKey('string'), 500); // ttlMs is ignored: no expiry
    await sleep(1_000);
    const answers = await checkMany(info.instances[1]!, 'redis-setnx', { waitMs: 300 }, 3, 3);
    expectDocumented(answers);
    expect(answers.map((a) => [a.status, a.error])).toEqual(Array(3).fill([503, 'lock_timeout']));
    expect(await redis.pttl(stockLockKey('string'))).toBe(-1);
  });

  it.each([
    ['redis-setnx-ex', 'string'],
    ['redis-owned', 'string'],
    ['redis-reentrant', 'hash'],
    ['redis-watchdog', 'hash'],
    ['redis-pubsub', 'hash'],
  ] as const)('%s: the lease expires after ttl and the next request gets the lock', async (strategy, kind) => {
    const { info } = own.current;
    const ttlMs = 500;
    await resetStock(info.instances[1]!, 10);
    await killHolder(strategy, stockLockKey(kind), ttlMs);
    const t0 = Date.now();
    const next = await check(info.instances[1]!, strategy, { waitMs: 5_000, ttlMs });
    expectDocumented([next]);
    expect(next).toEqual({ status: 200, error: undefined, warning: undefined });
    expect(Date.now() - t0).toBeLessThan(ttlMs + 1_000);
  });
});

describe('an instance stopped (SIGTERM) while a /test/ click holds its lock', () => {
  it('drains it like a deduction: the click finishes its work and answers 200 before the instance stops', async () => {
    const { info, servers } = own.current;
    const victim = servers.instances[0]!;
    if (victim.pid === undefined) await victim.start();
    const redis = new Redis(info.redis);
    // 2.5 s of work: past the 1 s the shutdown gives connections still open, within the 5 s drain.
    const pending = fetch(`${info.instances[0]!}/test/write?workMs=2500&ttlMs=10000`).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as Record<string, unknown>,
    }));
    try {
      await untilKeyExists(redis, readWriteLockKeys(RW_LOCK).lock);
      const t0 = Date.now();
      await victim.stop();
      const answer = await pending;
      console.log(`[drain /test/write] stopped in ${Date.now() - t0} ms; answer ${answer.status} ${JSON.stringify(answer.body)}`);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ ok: true, mode: 'write', workMs: 2500 });
      expect(answer.body.warning).toBeUndefined();
      expect(await redis.exists(readWriteLockKeys(RW_LOCK).lock)).toBe(0);
    } finally {
      await pending.catch(() => undefined);
      redis.disconnect();
      if (victim.pid === undefined) await victim.start();
    }
  });
});

describe('a deduction whose instance dies after its write, before its answer', () => {
  it('nginx does not resend it to another instance: one unit gone, and the client gets 502 (outcome unknown), not a second sale', async () => {
    const { info, servers } = own.current;
    for (const s of servers.instances) if (s.pid === undefined) await s.start();
    await resetStock(info.nginx, 10);
    const redis = new Redis(info.redis);
    let holderPort: number | undefined;
    try {
      const url = checkUrl(info.nginx, 'redis-owned', 'mysql', { workMs: 200, ttlMs: 1_000, waitMs: 5_000 });
      const status = fetch(url, { signal: AbortSignal.timeout(20_000) }).then((res) => res.status);
      await untilKeyExists(redis, stockLockKey('string'));
      // The lock's value is the owner token, `<instance id>:<uuid>`, and the instance id is app-<port>.
      holderPort = Number(/^app-(\d+):/.exec((await redis.get(stockLockKey('string'))) ?? '')?.[1]);
      // Redis writes pause: the holder's MySQL write goes through, but its release (a Lua write) and so its answer wait.
      await redis.call('CLIENT', 'PAUSE', '10000', 'WRITE');
      expect(await pollUntil(async () => (await unitsLeft(info, 'mysql')) === 9, 5_000)).toBe(true);
      await servers.instances.find((s) => s.port === holderPort)?.kill();
      await redis.call('CLIENT', 'UNPAUSE');
      // Resent, the deduction would wait out the dead holder's lease on another instance and answer 200.
      expect(await status).toBe(502);
      expect(await unitsLeft(info, 'mysql')).toBe(9);
    } finally {
      await redis.call('CLIENT', 'UNPAUSE').catch(() => undefined);
      redis.disconnect();
      const killed = servers.instances.find((s) => s.port === holderPort);
      if (killed && killed.pid === undefined) await killed.start();
    }
  });
});

describe('an instance stopped (SIGTERM) under load', () => {
  it('drains: what it sold left the store exactly once, the rest answered 503 (shutting_down) or were never read (none sold, by request id), and no lock is left', async () => {
    const { info, servers } = own.current;
    for (const s of servers.instances) if (s.pid === undefined) await s.start();
    const victim = servers.instances[0]!;
    const base = info.instances[0]!;
    await resetStock(base, 100);
    const redis = new Redis(info.redis);
    // 20 clients on one instance, 300 ms of work each under one lock: about 20 queue up, more than
    // the 5 s drain lets finish, so the drain both waits for some and aborts the others.
    const load = new KeepAliveLoad(checkUrl(base, 'redis-owned', 'mysql', { workMs: 300, ttlMs: 10_000, waitMs: 20_000 }), 20, 'drain', 'end');
    try {
      await sleep(1_000);
      const t0 = Date.now();
      await victim.stop();
      const stopMs = Date.now() - t0;
      await load.stop();
      const byError = tally(load.answers);
      console.log(`[drain] stopped in ${stopMs} ms; answers ${JSON.stringify(byError)}; ${load.unanswered.length} refused or cut off as the listener closed`);
      expectDocumented(load.answers);
      // Safety, exactly: every unit reported sold left the store, and nothing else did; by request
      // id, the unanswered ones (refused, or sent as the listener closed) sold nothing.
      expectSalesMatchAnswers(load, (await readSales(info.instances[1]!)) ?? {});
      expect(100 - (await unitsLeft(info, 'mysql'))).toBe(load.sold);
      expect(load.answers.filter((a) => a.status === 503 && a.error !== 'shutting_down')).toEqual([]);
      expect(byError['503 shutting_down'] ?? 0).toBeGreaterThan(0); // the drain did abort some
      expect(await redis.exists(stockLockKey('string'))).toBe(0);
      // Within the supervisor's 10 s grace: drain budget 5 s + 1 s for the aborted to answer.
      expect(stopMs).toBeLessThan(9_000);
    } finally {
      await load.stop();
      redis.disconnect();
      if (victim.pid === undefined) await victim.start();
    }
  });
});

describe('an instance stopped (SIGTERM) under load through nginx', () => {
  it('is taken out of rotation first: no 502 (outcome unknown) for anyone, a request cut off by the reload sold nothing, exact, no lock left, and it comes back', async () => {
    const { info, servers } = own.current;
    for (const s of servers.instances) if (s.pid === undefined) await s.start();
    const victim = servers.instances[0]!;
    // The test's own requests go to an instance that stays up, or over fresh connections once the
    // reloads are over: only the load's requests can meet a connection a reload closes, and those
    // are settled by request id.
    const steady = info.instances[1]!;
    await resetStock(steady, 300);
    const redis = new Redis(info.redis);
    const clients = 12;
    const load = new KeepAliveLoad(
      checkUrl(info.nginx, 'redis-owned', 'mysql', { workMs: 50, ttlMs: 10_000, waitMs: 20_000 }),
      clients,
      'drain-nginx',
      'go-on',
    );
    try {
      await sleep(1_000);
      await victim.stop();
      await sleep(500); // the other two keep selling
      await load.stop();
      // The reload that takes the victim out retires nginx's old workers, which close their idle
      // keep-alive connections: a client writing into one at that instant gets no answer, once at
      // most (its next connection, its own, reaches a new worker). By its request id it sold nothing (below).
      console.log(
        `[drain via nginx] answers ${JSON.stringify(tally(load.answers))}; ${load.unanswered.length} cut off by the reload, ` +
          `at most ${load.mostUnansweredOfOneClient} for one client (bound 1)`,
      );
      expect(load.answers.filter((a) => a.status === 502 || a.status === 504)).toEqual([]);
      expectDocumented(load.answers);
      expectSalesMatchAnswers(load, (await readSales(steady)) ?? {});
      expect(300 - (await unitsLeft(info, 'mysql'))).toBe(load.sold);
      expect(load.mostUnansweredOfOneClient).toBeLessThanOrEqual(1);
      expect(await redis.exists(stockLockKey('string'))).toBe(0);
      // Back in rotation once healthy: nginx reaches it again. The start's reload has retired the
      // workers the load's connections went to; a fresh connection per request reaches only the new
      // ones, each of which sends one request in three to each instance (round robin).
      await victim.start();
      const seen = new Set<string>();
      const HEALTH_REQUESTS = 12;
      for (let i = 0; i < HEALTH_REQUESTS && !seen.has(`app-${victim.port}`); i++) {
        const reply = await httpGet(`${info.nginx}/health`, 5_000);
        expect(reply?.status, 'GET /health through nginx over a fresh connection').toBe(200);
        seen.add((JSON.parse(reply!.body) as { instance: string }).instance);
      }
      expect(seen).toContain(`app-${victim.port}`);
    } finally {
      await load.stop();
      redis.disconnect();
      if (victim.pid === undefined) await victim.start();
    }
  });
});
