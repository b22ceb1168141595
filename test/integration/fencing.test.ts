// Fencing tokens, on the stores themselves and under a lock whose lease runs out: the stale holder's
// write is refused when fenced, and, built the same way without fencing, it overwrites the next
// holder's sale (the lost update the token exists to stop). Explicit sequencing, no races.
// Runs against the shared cluster's MySQL and Redis; leaves the stock reset.
import type { Redis } from 'ioredis';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetStock } from '../../src/load/race.js';
import { createDataSource } from '../../src/db/data-source.js';
import { FENCE_SOURCES, FencedError, type Fence, type FenceSource } from '../../src/fencing.js';
import { OwnedLock } from '../../src/locks/redis/string/owned.js';
import { connectRedis } from '../../src/redis-client/connect.js';
import { MysqlStock } from '../../src/stock/mysql-stock.js';
import { INITIAL_COUNT, PRODUCT_CODE, REDIS_STOCK_KEY, STOCK_CODE, redisStockFenceKey } from '../../src/stock/product.js';
import { readThenWrite } from '../../src/stock/read-then-write.js';
import { RedisStock } from '../../src/stock/redis-stock.js';
import type { StockStore } from '../../src/stock/store.js';
import { sleep } from '../../src/time.js';
import { sharedCluster } from '../support/cluster.js';

const cluster = sharedCluster();
let ds: DataSource;
let redis: Redis;
const stores: Record<'mysql' | 'redis', StockStore> = {} as Record<'mysql' | 'redis', StockStore>;

/** The shared cluster's fences before this file, put back after: its test tokens must not outrank later real ones. */
let savedRow: Record<string, string> | undefined;
let savedKeys: Record<string, string | null>;
const FENCE_KEYS = FENCE_SOURCES.map(redisStockFenceKey);

beforeAll(async () => {
  ds = await createDataSource({ ...cluster.mysql, poolSize: 4, connectTimeoutMs: 5_000 }).initialize();
  redis = connectRedis(cluster.redis, { commandTimeoutMs: 3_000 });
  await redis.connect();
  stores.mysql = new MysqlStock(ds);
  stores.redis = new RedisStock(redis);
  savedRow = ((await ds.query('SELECT fence_redis, fence_zookeeper, fence_lock_table FROM db_stock')) as Record<string, string>[])[0];
  savedKeys = Object.fromEntries(await Promise.all(FENCE_KEYS.map(async (k) => [k, await redis.get(k)] as const)));
});

afterAll(async () => {
  if (savedRow)
    await ds.query('UPDATE db_stock SET fence_redis = ?, fence_zookeeper = ?, fence_lock_table = ?', [
      savedRow.fence_redis,
      savedRow.fence_zookeeper,
      savedRow.fence_lock_table,
    ]);
  for (const [key, value] of Object.entries(savedKeys ?? {})) await (value === null ? redis.del(key) : redis.set(key, value));
  await ds?.destroy();
  redis?.disconnect();
  await resetStock(cluster.nginx, INITIAL_COUNT);
});

/** A token above anything this store's fence for `source` has seen: fences only grow, across tests too. */
async function freshToken(store: StockStore, source: FenceSource): Promise<bigint> {
  let token = 1n;
  while (!(await store.claim({ source, token }))) token *= 2n;
  return token + 1_000n;
}

describe.each(['mysql', 'redis'] as const)('the %s store', (kind) => {
  it('claims only with a larger token, writes only while the claim stands, and records the sale with the write', async () => {
    const store = stores[kind];
    await store.reset(10);
    const base = await freshToken(store, 'zookeeper');
    const a: Fence = { source: 'zookeeper', token: base };
    const b: Fence = { source: 'zookeeper', token: base + 1n };
    expect(await store.claim(a)).toBe(true);
    expect(await store.claim(a)).toBe(false); // equal is not larger
    expect(await store.writeFenced(a, 9, 'sale-a1')).toBe(true);
    expect(await store.claim(b)).toBe(true);
    expect(await store.claim(a)).toBe(false);
    expect(await store.writeFenced(a, 8, 'sale-a2')).toBe(false);
    expect(await store.read()).toBe(9);
    expect(await store.sales()).toEqual({ 'sale-a1': 1 });
  });

  it('keeps one fence per token source, and a reset never lowers one', async () => {
    const store = stores[kind];
    const zk = await freshToken(store, 'zookeeper');
    const table = await freshToken(store, 'lock-table');
    expect(await store.claim({ source: 'zookeeper', token: zk })).toBe(true);
    // A small token of another source is judged against its own fence, not ZooKeeper's.
    expect(await store.claim({ source: 'lock-table', token: table })).toBe(true);
    await store.reset(5);
    expect(await store.claim({ source: 'zookeeper', token: zk })).toBe(false);
    expect(await store.sales()).toEqual({});
  });
});

/**
 * The store, with A held at a gate: before its write (after its read), or before its claim.
 * `arrived` says A has reached the gate, which stays shut until `open`. Explicit sequencing: A has
 * read (or taken its token) before B starts, and goes on after B is done.
 */
function gated(store: StockStore, before: 'write' | 'claim'): { store: StockStore; arrived: Promise<void>; open: () => void } {
  let arrive = () => {};
  let open = () => {};
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const gate = new Promise<void>((resolve) => (open = resolve));
  const atGate = async () => {
    arrive();
    await gate;
  };
  const at = (step: 'write' | 'claim') => (before === step ? atGate() : Promise.resolve());
  return {
    arrived,
    open,
    store: {
      claim: async (f) => (await at('claim'), store.claim(f)),
      read: async () => {
        const count = await store.read();
        if (before === 'write') arrive();
        return count;
      },
      write: async (count, sale) => (await at('write'), store.write(count, sale)),
      writeFenced: async (f, count, sale) => (await at('write'), store.writeFenced(f, count, sale)),
      reset: (c) => store.reset(c),
      sales: () => store.sales(),
    },
  };
}

/** The count and the fence of redis tokens, read straight from the server (not through the store under test). */
async function stored(kind: 'mysql' | 'redis'): Promise<{ count: number; fence: bigint }> {
  if (kind === 'redis') {
    const [count, fence] = await Promise.all([redis.get(REDIS_STOCK_KEY), redis.get(redisStockFenceKey('redis'))]);
    return { count: Number(count), fence: BigInt(fence ?? 0) };
  }
  const [row] = (await ds.query('SELECT `count`, fence_redis FROM db_stock WHERE product_code = ? AND stock_code = ?', [PRODUCT_CODE, STOCK_CODE])) as {
    count: number;
    fence_redis: string;
  }[];
  return { count: Number(row?.count), fence: BigInt(row?.fence_redis ?? 0) };
}

describe.each(['mysql', 'redis'] as const)('redis-owned on the %s store: holder A stops, its lease runs out, B sells, then A goes on', (kind) => {
  const TTL_MS = 200;

  /** A stopped before its write (after its read) or before its claim (with its token); the outcome of A, and the store after. */
  async function staleHolder(fenced: boolean, aStopsBefore: 'write' | 'claim' = 'write') {
    const store = stores[kind];
    const lock = new OwnedLock(redis);
    await store.reset(10);
    const opts = { ttlMs: TTL_MS, waitMs: 5_000, retryMs: 10 };
    const tokenOf = async (lease: Awaited<ReturnType<OwnedLock['acquire']>>): Promise<Fence | undefined> =>
      fenced ? { source: 'redis', token: await lease.fencingToken!() } : undefined;

    const leaseA = await lock.acquire('fencing-test', { ...opts, owner: 'A' });
    const slowA = gated(store, aStopsBefore);
    const a = readThenWrite(slowA.store, 0, { fence: await tokenOf(leaseA), sale: 'a' }).catch((err: unknown) => err);
    await slowA.arrived;
    await sleep(TTL_MS + 50); // A's lease runs out; B's acquire proves it
    // B's own lease is long: only A's must run out, and B's release must find it on a slow machine.
    const leaseB = await lock.acquire('fencing-test', { ...opts, ttlMs: 30_000, owner: 'B', waitMs: 0 });
    const fenceB = await tokenOf(leaseB);
    expect(await readThenWrite(store, 0, { fence: fenceB, sale: 'b' })).toBe('deducted');
    await leaseB.release();
    slowA.open();
    const outcome = await a;
    await leaseA.release().catch(() => undefined);
    return { a: outcome, left: await store.read(), sales: await store.sales(), stored: await stored(kind), tokenB: fenceB?.token };
  }

  it("unfenced: A's stale write lands, two units sold and one deducted (the flaw fencing closes)", async () => {
    const { a, left, sales, stored } = await staleHolder(false);
    expect(a).toBe('deducted');
    expect({ left, sales, count: stored.count }).toEqual({ left: 9, sales: { a: 1, b: 1 }, count: 9 });
  });

  it("fenced: A's write is refused (FencedError), one unit sold and one deducted", async () => {
    const { a, left, sales, stored, tokenB } = await staleHolder(true);
    expect(a).toBeInstanceOf(FencedError);
    expect(String(a)).toMatch(/refused at write/);
    expect({ left, sales }).toEqual({ left: 9, sales: { b: 1 } });
    // Read from the server itself: B's unit gone, and the fence still B's token.
    expect(stored).toEqual({ count: 9, fence: tokenB });
  });

  it("fenced, A's late write lands between B's read and B's write: refused, since B claimed before it read; one unit sold and one deducted", async () => {
    const store = stores[kind];
    const lock = new OwnedLock(redis);
    await store.reset(10);
    const opts = { ttlMs: TTL_MS, waitMs: 5_000, retryMs: 10 };
    const leaseA = await lock.acquire('fencing-test', { ...opts, owner: 'A' });
    const slowA = gated(store, 'write');
    const a = readThenWrite(slowA.store, 0, { fence: { source: 'redis', token: await leaseA.fencingToken!() }, sale: 'a' }).catch((err: unknown) => err);
    await slowA.arrived;
    await sleep(TTL_MS + 50);
    const leaseB = await lock.acquire('fencing-test', { ...opts, ttlMs: 30_000, owner: 'B', waitMs: 0 });
    const fenceB: Fence = { source: 'redis', token: await leaseB.fencingToken!() };
    let aOutcome: unknown;
    // B's store lets A go on right after B's read, and waits for A's outcome before B writes.
    const bStore: StockStore = {
      claim: (f) => store.claim(f),
      read: async () => {
        const count = await store.read();
        slowA.open();
        aOutcome = await a;
        return count;
      },
      write: (count, sale) => store.write(count, sale),
      writeFenced: (f, count, sale) => store.writeFenced(f, count, sale),
      reset: (c) => store.reset(c),
      sales: () => store.sales(),
    };
    expect(await readThenWrite(bStore, 0, { fence: fenceB, sale: 'b' })).toBe('deducted');
    await leaseB.release();
    await leaseA.release().catch(() => undefined);
    expect(aOutcome).toBeInstanceOf(FencedError);
    expect({ left: await store.read(), sales: await store.sales() }).toEqual({ left: 9, sales: { b: 1 } });
    expect(await stored(kind)).toEqual({ count: 9, fence: fenceB.token });
  });

  it("fenced, A stopped before its claim: A's late claim is refused (FencedError), the fence stays B's, one unit sold and one deducted", async () => {
    const { a, left, sales, stored, tokenB } = await staleHolder(true, 'claim');
    expect(a).toBeInstanceOf(FencedError);
    expect(String(a)).toMatch(/refused at claim/);
    expect({ left, sales }).toEqual({ left: 9, sales: { b: 1 } });
    expect(stored).toEqual({ count: 9, fence: tokenB });
  });
});
