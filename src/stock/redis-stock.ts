import type { Redis } from 'ioredis';
import { callDependency } from '../dependency.js';
import { REDIS_STOCK_KEY } from './product.js';
import type { StockStore } from './store.js';

/** The Redis stock key: the same read-then-write as MySQL, for the Redis-side strategies. */
export class RedisStock implements StockStore {
  readonly key = REDIS_STOCK_KEY;

  constructor(readonly client: Redis) {}

  read(): Promise<number> {
    return callDependency('redis', async () => Number((await this.client.get(this.key)) ?? 0));
  }

  write(count: number): Promise<void> {
    return callDependency('redis', async () => {
      await this.client.set(this.key, count);
    });
  }

  reset(count: number): Promise<void> {
    return this.write(count);
  }

  /** Sets the count only where the key is missing: Redis keeps no data across restarts here. */
  seed(count: number): Promise<void> {
    return callDependency('redis', async () => {
      await this.client.set(this.key, count, 'NX');
    });
  }
}
