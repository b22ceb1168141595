import { LockLostError } from '../locks/errors.js';
import { sleep } from '../time.js';
import type { StockStore } from './store.js';

/**
 * The course's check-then-deduct: read the count, do the business work, write count − 1.
 * Unsafe on its own (two readers write the same value); every lock strategy protects exactly this.
 * `lost` lets a lock that learns of its loss stop the write instead of corrupting the count.
 */
export async function readThenWrite(store: StockStore, workMs: number, lost?: AbortSignal): Promise<'deducted' | 'sold_out'> {
  const count = await store.read();
  if (count <= 0) return 'sold_out';
  if (workMs > 0) await sleep(workMs);
  if (lost?.aborted) throw new LockLostError('stock', String(lost.reason ?? 'lost during the work'));
  await store.write(count - 1);
  return 'deducted';
}
