// Servers that die (a private cluster, since servers are killed): a crashed lock holder, and
// RedLock with a minority, then a majority, of its servers stopped.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { race, resetStock } from '../bench/race.js';
import { withOwnCluster } from './support/cluster.js';
import { check, checkMany, count, expectExact, stockLockKey, storesOf, untilKeyExists } from './redis-helpers.js';

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
    const pending = check(info.instances[0]!, { strategy, workMs: 5_000, ttlMs }).catch(() => undefined);
    await untilKeyExists(redis, lockKey);
    await holder.kill();
    await pending;
  }

  it('redis-setnx: the lock stays forever, every later request times out (503 lock_timeout)', async () => {
    const { info } = own.current;
    await resetStock(info.instances[1]!, 10);
    await killHolder('redis-setnx', stockLockKey('string'), 500); // ttlMs is ignored: no expiry
    await new Promise((r) => setTimeout(r, 1_000));
    const answers = await checkMany(info.instances[1]!, { strategy: 'redis-setnx', waitMs: 300 }, 3, 3);
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
    const next = await check(info.instances[1]!, { strategy, waitMs: 5_000, ttlMs });
    expect(next).toEqual({ status: 200, error: undefined, warning: undefined });
    expect(Date.now() - t0).toBeLessThan(ttlMs + 1_000);
  });
});

describe('RedLock with its servers stopping', () => {
  afterAll(async () => {
    for (const server of own.current.servers.redlock) if (server.pid === undefined) await server.start();
  });

  it('stays exact with 2 of 5 servers stopped', async () => {
    const { info, servers } = own.current;
    for (const instance of servers.instances) if (instance.pid === undefined) await instance.start();
    await servers.redlock[0]!.stop();
    await servers.redlock[1]!.stop();
    const r = await race({ target: info.nginx, stores: storesOf(info), strategy: 'redlock', initial: 100, requests: 120, connections: 30, maxSeconds: 60 });
    expectExact(r, 120);
  });

  it('answers 503 redlock_unavailable at once without a quorum (3 of 5 stopped)', async () => {
    const { info, servers } = own.current;
    await servers.redlock[2]!.stop();
    await resetStock(info.nginx, 10);
    const t0 = Date.now();
    const answers = await checkMany(info.nginx, { strategy: 'redlock', waitMs: 5_000 }, 6, 3);
    expect(answers.map((a) => [a.status, a.error])).toEqual(Array(6).fill([503, 'redlock_unavailable']));
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(count(answers, (a) => a.status === 200)).toBe(0);
  });
});
