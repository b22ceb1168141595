// Reads what is left straight from MySQL, Redis and PostgreSQL, not through the service under test:
// "oversold" must not depend on the service telling the truth.
import { createConnection } from 'mysql2/promise';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { ClusterInfo } from './types.js';
import { PRODUCT_CODE, REDIS_STOCK_KEY, STOCK_CODE } from '../stock/product.js';
import type { StoreKind } from '../stock/store.js';
import { pollUntil } from '../time.js';

/** A ClusterInfo is one; the bench also builds them from flags and the environment (bench/target.ts). */
export type StoreAddresses = Pick<ClusterInfo, 'mysql' | 'redis' | 'postgres'>;

/** The stock row's count, as MySQL has it (parameters: PRODUCT_CODE, STOCK_CODE). */
export const STOCK_COUNT_SQL = 'SELECT `count` FROM db_stock WHERE product_code = ? AND stock_code = ?';

/** The same row's count in PostgreSQL's twin of the schema. */
export const PG_STOCK_COUNT_SQL = 'SELECT count FROM db_stock WHERE product_code = $1 AND stock_code = $2';

async function postgresUnitsLeft(addr: StoreAddresses): Promise<number> {
  if (!addr.postgres) throw new Error('no PostgreSQL address for store=postgres (the native cluster records one in cluster.json)');
  const client = new pg.Client({ ...addr.postgres, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const row = (await client.query<{ count: number }>(PG_STOCK_COUNT_SQL, [PRODUCT_CODE, STOCK_CODE])).rows[0];
    if (!row) throw new Error(`no db_stock row for ${PRODUCT_CODE}/${STOCK_CODE} in PostgreSQL`);
    return Number(row.count);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function unitsLeft(addr: StoreAddresses, store: StoreKind): Promise<number> {
  if (store === 'postgres') return postgresUnitsLeft(addr);
  if (store === 'redis') {
    const client = new Redis(addr.redis, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await client.connect();
      return Number((await client.get(REDIS_STOCK_KEY)) ?? 0);
    } finally {
      client.disconnect();
    }
  }
  const conn = await createConnection({ ...addr.mysql, connectTimeout: 5_000 });
  try {
    const [rows] = await conn.query(STOCK_COUNT_SQL, [PRODUCT_CODE, STOCK_CODE]);
    const row = (rows as { count: number }[])[0];
    if (!row) throw new Error(`no db_stock row for ${PRODUCT_CODE}/${STOCK_CODE}`);
    return Number(row.count);
  } finally {
    await conn.end();
  }
}

/**
 * Requests abandoned by a truncated run (or timed out) may still be deducting on the server.
 * Read every quietMs until two reads in a row agree (for boundMs at most), so the figure is final
 * and the next run starts clean.
 */
export async function settledUnitsLeft(addr: StoreAddresses, store: StoreKind, quietMs = 1_000, boundMs = 20_000): Promise<number> {
  let last = NaN; // equals nothing: the first read cannot count as settled
  let now = NaN;
  await pollUntil(
    async () => {
      last = now;
      now = await unitsLeft(addr, store);
      return now === last;
    },
    boundMs,
    quietMs,
  );
  return now; // pollUntil reads at least once
}
