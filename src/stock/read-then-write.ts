import { sleep } from '../time.js';
import type { StockStore } from './store.js';

/**
 * The course's check-then-deduct: read the count, do the business work, write count − 1.
 * Unsafe on its own (two readers write the same value); every lock strategy protects exactly this.
 * `beforeWrite` lets the caller refuse the write (by throwing) when it no longer may make it, for
 * example because its lock was lost during the work.
 */
export async function readThenWrite(store: StockStore, workMs: number, beforeWrite?: () => void): Promise<'deducted' | 'sold_out'> {
  const count = await store.read();
  if (count <= 0) return 'sold_out';
  if (workMs > 0) await sleep(workMs);
  beforeWrite?.();
  await store.write(count - 1);
  return 'deducted';
}
