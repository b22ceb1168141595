// MySQL's and Redis's stock, read straight from the stores a few times a second while a race runs,
// on one connection each (not through the service under test: the figure must not depend on it).
import { createConnection, type Connection } from 'mysql2/promise';
import { Redis } from 'ioredis';
import { STOCK_COUNT_SQL, type StoreAddresses } from '../bench/stores.js';
import { PRODUCT_CODE, REDIS_STOCK_KEY, STOCK_CODE } from '../src/stock/product.js';

export interface StockReading {
  mysql?: number;
  redis?: number;
}

export class StockWatch {
  latest: StockReading = {};
  private timer: NodeJS.Timeout | undefined;
  private reading = false;

  private constructor(
    private readonly mysql: Connection,
    private readonly redis: Redis,
  ) {}

  static async open(addr: StoreAddresses): Promise<StockWatch> {
    const mysql = await createConnection({ ...addr.mysql, connectTimeout: 5_000 });
    const redis = new Redis(addr.redis, { lazyConnect: true, maxRetriesPerRequest: 1, commandTimeout: 1_000 });
    try {
      await redis.connect();
    } catch (err) {
      await mysql.end();
      throw err;
    }
    return new StockWatch(mysql, redis);
  }

  /** Reads both stores now (a store that fails leaves its figure out). */
  async read(): Promise<StockReading> {
    const [m, r] = await Promise.allSettled([
      this.mysql.query(STOCK_COUNT_SQL, [PRODUCT_CODE, STOCK_CODE]).then(([rows]) => Number((rows as { count: number }[])[0]?.count)),
      this.redis.get(REDIS_STOCK_KEY).then((v) => Number(v ?? 0)),
    ]);
    this.latest = { ...(m.status === 'fulfilled' && { mysql: m.value }), ...(r.status === 'fulfilled' && { redis: r.value }) };
    return this.latest;
  }

  /** Reads every everyMs (never two reads at once) until close(). */
  start(everyMs: number): void {
    this.timer = setInterval(() => {
      if (this.reading) return;
      this.reading = true;
      void this.read().finally(() => (this.reading = false));
    }, everyMs);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.redis.disconnect();
    await this.mysql.end().catch(() => undefined);
  }
}
