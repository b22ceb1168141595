import type { Redis } from 'ioredis';
import { callDependencyWrite } from '../dependency.js';
import { redisCall } from '../redis-client/call.js';
import type { Fence } from '../fencing.js';
import { isOne, luaScript } from '../redis-client/lua.js';
import { REDIS_SALES_KEY, REDIS_STOCK_KEY, redisStockFenceKey } from './product.js';
import type { SaleId, StockStore } from './store.js';

/** Raises the stock's fence for one token source to `token` if every token seen so far is smaller: true when claimed. */
const stockFenceClaim = luaScript('stock-fence-claim', ['fence'], ['token'], isOne);
/** Writes the count and records the sale only while the fence is still `token`: true when written. */
const stockFencedWrite = luaScript('stock-fenced-write', ['stock', 'fence', 'sales'], ['token', 'count', 'sale'], isOne);

/** The Redis stock key: the same read-then-write as MySQL, for the Redis-side strategies. */
export class RedisStock implements StockStore {
  readonly key = REDIS_STOCK_KEY;

  constructor(readonly client: Redis) {}

  read(): Promise<number> {
    return redisCall(async () => Number((await this.client.get(this.key)) ?? 0));
  }

  write(count: number, sale?: SaleId): Promise<void> {
    return callDependencyWrite('redis', async () => {
      if (!sale) await this.client.set(this.key, count);
      else await this.client.multi().set(this.key, count).hincrby(REDIS_SALES_KEY, sale, 1).exec();
    });
  }

  claim(fence: Fence): Promise<boolean> {
    return redisCall(() => stockFenceClaim.run(this.client, { fence: redisStockFenceKey(fence.source) }, { token: fence.token.toString() }));
  }

  writeFenced(fence: Fence, count: number, sale?: SaleId): Promise<boolean> {
    const keys = { stock: this.key, fence: redisStockFenceKey(fence.source), sales: REDIS_SALES_KEY };
    return callDependencyWrite('redis', () => stockFencedWrite.run(this.client, keys, { token: fence.token.toString(), count, sale: sale ?? '' }));
  }

  reset(count: number): Promise<void> {
    return redisCall(async () => {
      await this.client.multi().set(this.key, count).del(REDIS_SALES_KEY).exec();
    });
  }

  async sales(): Promise<Record<string, number>> {
    const all = await redisCall(() => this.client.hgetall(REDIS_SALES_KEY));
    return Object.fromEntries(Object.entries(all).map(([id, n]) => [id, Number(n)]));
  }

  /** Sets the count only where the key is missing: Redis keeps no data across restarts here. */
  seed(count: number): Promise<void> {
    return redisCall(async () => {
      await this.client.set(this.key, count, 'NX');
    });
  }
}
