/** The one stock row the lab sells from: product 1001 in warehouse 001, as in the course. */
export const PRODUCT_CODE = '1001';
export const STOCK_CODE = '001';
export const INITIAL_COUNT = 5000;

/** The Redis key that mirrors the row for the Redis-side deductions. */
export const REDIS_STOCK_KEY = `stock:${PRODUCT_CODE}:${STOCK_CODE}`;

/** Request id → deductions committed, beside the Redis stock key (see StockStore.sales). */
export const REDIS_SALES_KEY = `${REDIS_STOCK_KEY}:sales`;

/** The Redis stock key's fence for one token source (see fencing.ts). */
export const redisStockFenceKey = (source: string): string => `${REDIS_STOCK_KEY}:fence:${source}`;

/** The lock resource every guard serializes on. */
export const STOCK_LOCK_RESOURCE = `stock:${PRODUCT_CODE}:${STOCK_CODE}`;
