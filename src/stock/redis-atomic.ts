// Deductions that are atomic on the Redis stock key by themselves, without any lock.
import type { Redis } from 'ioredis';
import { callDependencyWrite } from '../dependency.js';
import { redisCall } from '../redis-client/call.js';
import { sleep } from '../time.js';
import { isOne, luaScript } from '../redis-client/lua.js';
import { REDIS_SALES_KEY, REDIS_STOCK_KEY } from './product.js';
import type { SaleId } from './store.js';

/** Takes a unit if one is left and records the sale ('' for none): true when taken. */
const stockDecrement = luaScript('stock-decrement', ['stock', 'sales'], ['sale'], isOne);

/**
 * docs/course.md §1.8, Redis's optimistic lock: WATCH the key, read, work, then MULTI/SET/EXEC, which
 * Redis aborts when anyone changed the key since the WATCH. `conn` must be used by this call
 * alone (WATCH state belongs to the connection). 'conflict' means: aborted, try again.
 */
export function watchedDecrement(conn: Redis, workMs: number, sale?: SaleId): Promise<'deducted' | 'sold_out' | 'conflict'> {
  return redisCall(async () => {
    await conn.watch(REDIS_STOCK_KEY);
    let executed = false;
    try {
      const count = Number((await conn.get(REDIS_STOCK_KEY)) ?? 0);
      if (count <= 0) return 'sold_out';
      if (workMs > 0) await sleep(workMs);
      executed = true;
      const tx = conn.multi().set(REDIS_STOCK_KEY, count - 1);
      if (sale) tx.hincrby(REDIS_SALES_KEY, sale, 1);
      // EXEC is the write: an answer lost after it was sent is an unknown outcome.
      const replies = await callDependencyWrite('redis', () => tx.exec());
      return replies === null ? 'conflict' : 'deducted';
    } finally {
      // EXEC ends the WATCH itself; any other way out must end it, or the next user inherits it.
      if (!executed) await conn.unwatch().catch(() => undefined);
    }
  });
}

/** The check and the decrement as one Lua script: nothing can run in between. */
export async function luaDecrement(redis: Redis, workMs: number, sale?: SaleId): Promise<'deducted' | 'sold_out'> {
  // Nothing is read before the script, so the work happens before it, outside any critical section.
  if (workMs > 0) await sleep(workMs);
  const taken = await callDependencyWrite('redis', () => stockDecrement.run(redis, { stock: REDIS_STOCK_KEY, sales: REDIS_SALES_KEY }, { sale: sale ?? '' }));
  return taken ? 'deducted' : 'sold_out';
}
