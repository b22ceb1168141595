// The stores' stock (MySQL's, Redis's, and PostgreSQL's where the cluster has one), read straight
// from them a few times a second while a race runs, on one connection each (not through the
// service under test: the figure must not depend on it).
import { createConnection, type Connection } from 'mysql2/promise';
import { Redis } from 'ioredis';
import pg from 'pg';
import { PG_STOCK_COUNT_SQL, STOCK_COUNT_SQL, type StoreAddresses } from '../src/cluster/stores.js';
import { PRODUCT_CODE, REDIS_STOCK_KEY, STOCK_CODE } from '../src/stock/product.js';
import type { StoreKind } from '../src/stock/store.js';
import type { StockReading } from './shared/types.js';

const quiet = (read: Promise<number>): Promise<number | undefined> => read.catch(() => undefined);

export class StockWatch {
  latest: StockReading = {};
  private timer: NodeJS.Timeout | undefined;
  private reading = false;

  private constructor(
    private readonly mysql: Connection,
    private readonly redis: Redis,
    /** absent where the lab's cluster records no PostgreSQL */
    private readonly postgres: pg.Client | undefined,
  ) {}

  static async open(addr: StoreAddresses): Promise<StockWatch> {
    const mysql = await createConnection({ ...addr.mysql, connectTimeout: 5_000 });
    const redis = new Redis(addr.redis, { lazyConnect: true, maxRetriesPerRequest: 1, commandTimeout: 1_000 });
    const postgres = addr.postgres && new pg.Client({ ...addr.postgres, connectionTimeoutMillis: 5_000, query_timeout: 1_000 });
    // a dropped connection surfaces as the next query's failure (that reading left out), not as a crash
    postgres?.on('error', () => undefined);
    try {
      await Promise.all([redis.connect(), postgres?.connect()]);
    } catch (err) {
      redis.disconnect();
      await Promise.all([mysql.end(), postgres?.end().catch(() => undefined)]);
      throw err;
    }
    return new StockWatch(mysql, redis, postgres);
  }

  /** Reads every store now (a store that fails leaves its figure out). */
  async read(): Promise<StockReading> {
    // each read's failure caught as it starts, so none goes unhandled while another is awaited
    const reads: [StoreKind, Promise<number | undefined>][] = [
      ['mysql', quiet(this.mysql.query(STOCK_COUNT_SQL, [PRODUCT_CODE, STOCK_CODE]).then(([rows]) => Number((rows as { count: number }[])[0]?.count)))],
      ['redis', quiet(this.redis.get(REDIS_STOCK_KEY).then((v) => Number(v ?? 0)))],
    ];
    if (this.postgres)
      reads.push([
        'postgres',
        quiet(this.postgres.query<{ count: number }>(PG_STOCK_COUNT_SQL, [PRODUCT_CODE, STOCK_CODE]).then((r) => Number(r.rows[0]?.count))),
      ]);
    const reading: StockReading = {};
    for (const [store, value] of reads) {
      const count = await value;
      if (count !== undefined) reading[store] = count;
    }
    this.latest = reading;
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
    await Promise.all([this.mysql.end().catch(() => undefined), this.postgres?.end().catch(() => undefined)]);
  }
}
