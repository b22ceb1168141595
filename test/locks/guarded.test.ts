// The guarded deduction (strategies/guarded.ts) run in this process, over redis-owned on one Redis
// server and the Redis stock on another: a committed write stays a sale whatever its release does
// (a lease already gone → lock_expired_before_release; the lock's Redis unreachable →
// lock_release_failed), and fenced=1 claims the stock with the grant's token and refuses a stale
// one. The order is built by the store itself: what must happen "between the write and the
// release" runs inside its write, after the write committed.
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { FencedError } from '../../src/fencing.js';
import { stringLockKey } from '../../src/locks/redis/keys.js';
import { OwnedLock } from '../../src/locks/redis/string/owned.js';
import { createLogger } from '../../src/logger.js';
import { STOCK_LOCK_RESOURCE, redisStockFenceKey } from '../../src/stock/product.js';
import { RedisStock } from '../../src/stock/redis-stock.js';
import type { SaleId } from '../../src/stock/store.js';
import { guardedDeduction } from '../../src/strategies/guarded.js';
import type { DeductRequest, DeductResult } from '../../src/strategies/strategy.js';
import { openRedis } from '../support/redis-client.js';
import { withServers } from '../support/servers.js';

const servers = withServers({ redis: 2 });
const LOCK = { ttlMs: 5_000, waitMs: 2_000, retryMs: 20 };

/** The Redis stock, with a step of the test's run right after each write committed. */
class StockWithAfterWrite extends RedisStock {
  afterWrite: () => Promise<void> = async () => undefined;
  override async write(count: number, sale?: SaleId): Promise<void> {
    await super.write(count, sale);
    await this.afterWrite();
  }
}

const open: Redis[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.disconnect();
});

async function setUp(): Promise<{ lockRedis: Redis; stock: StockWithAfterWrite; deduct: (req: Partial<DeductRequest>) => Promise<DeductResult> }> {
  const [lockRedis, stockRedis] = await Promise.all(servers.current.redis.map(openRedis));
  open.push(lockRedis!, stockRedis!);
  const stock = new StockWithAfterWrite(stockRedis!);
  await stock.reset(5);
  await lockRedis!.del(stringLockKey(STOCK_LOCK_RESOURCE));
  const deduct = guardedDeduction({ logger: createLogger('silent'), stock: { redis: stock, mysql: undefined as never, postgres: undefined as never } }, {
    name: 'redis-owned',
    family: 'redis',
    course: 'beyond the course',
    description: { en: 'test', zh: '测试' },
    expected: { oneInstance: 'exact', threeInstances: 'exact' },
    lock: new OwnedLock(lockRedis!),
  });
  return { lockRedis: lockRedis!, stock, deduct: (req) => deduct({ workMs: 0, store: 'redis', lock: LOCK, owner: `owner-${Math.random()}`, fenced: false, ...req }) };
}

describe('the guarded deduction, its write committed', () => {
  it('released as usual: one unit sold, no warning, the lock free', async () => {
    const { lockRedis, stock, deduct } = await setUp();
    expect(await deduct({ requestId: 'plain' })).toEqual({ outcome: 'deducted' });
    expect(await stock.read()).toBe(4);
    expect(await stock.sales()).toEqual({ plain: 1 });
    expect(await lockRedis.exists(stringLockKey(STOCK_LOCK_RESOURCE))).toBe(0);
  });

  it('its lease gone before the release: still one unit sold, with the warning lock_expired_before_release', async () => {
    const { lockRedis, stock, deduct } = await setUp();
    stock.afterWrite = async () => void (await lockRedis.del(stringLockKey(STOCK_LOCK_RESOURCE)));
    expect(await deduct({ requestId: 'expired' })).toEqual({ outcome: 'deducted', warning: 'lock_expired_before_release' });
    expect(await stock.read()).toBe(4);
    expect(await stock.sales()).toEqual({ expired: 1 });
  });

  it("the lock's Redis unreachable before the release: still one unit sold, with the warning lock_release_failed", async () => {
    const { lockRedis, stock, deduct } = await setUp();
    stock.afterWrite = async () => lockRedis.disconnect();
    expect(await deduct({ requestId: 'unreachable' })).toEqual({ outcome: 'deducted', warning: 'lock_release_failed' });
    expect(await stock.read()).toBe(4);
    expect(await stock.sales()).toEqual({ unreachable: 1 });
  });

  it('sold out: nothing written, nothing warned', async () => {
    const { stock, deduct } = await setUp();
    await stock.reset(0);
    expect(await deduct({ requestId: 'none-left' })).toEqual({ outcome: 'sold_out' });
    expect(await stock.sales()).toEqual({});
  });
});

describe('the guarded deduction with fenced=1', () => {
  it("claims the stock with the grant's token, and refuses to sell under a token a later holder's claim outranks", async () => {
    const { lockRedis, stock, deduct } = await setUp();
    const fenceKey = redisStockFenceKey('redis');
    await stock.client.del(fenceKey);
    expect(await deduct({ fenced: true, requestId: 'fenced-1' })).toEqual({ outcome: 'deducted' });
    const claimed = BigInt((await stock.client.get(fenceKey)) ?? '0');
    expect(claimed).toBeGreaterThan(0n);
    // A later holder (elsewhere) claimed with a far larger token: this lock's next grant is stale.
    await stock.client.set(fenceKey, (claimed + 1_000_000n).toString());
    await expect(deduct({ fenced: true, requestId: 'fenced-2' })).rejects.toBeInstanceOf(FencedError);
    expect(await stock.read()).toBe(4);
    expect(await stock.sales()).toEqual({ 'fenced-1': 1 });
    // The refused deduction still gave the lock back.
    expect(await lockRedis.exists(stringLockKey(STOCK_LOCK_RESOURCE))).toBe(0);
  });
});
