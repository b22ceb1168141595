import { FencedError, type Fence } from '../fencing.js';
import { sleep } from '../time.js';
import type { SaleId, StockStore } from './store.js';

export interface WriteGuard {
  /**
   * Runs after the read and the work, right before the write; throws to refuse the write, for
   * example because the lock was lost during the work.
   */
  beforeWrite?: () => void;
  /**
   * The holder's fencing token. The stock is claimed with it before the read and written only while
   * the claim stands, so the whole read-then-write is fenced: a stale holder can neither write
   * after a later holder's claim nor have its read overwrite a later holder's write.
   */
  fence?: Fence;
  /** A request id to record with the write. */
  sale?: SaleId;
  /** The request gave up: stop the work and skip the write (checked until the write is sent). */
  signal?: AbortSignal;
}

/**
 * The course's check-then-deduct: read the count, do the business work, write count − 1.
 * Unsafe on its own (two readers write the same value); every lock strategy protects exactly this.
 */
export async function readThenWrite(store: StockStore, workMs: number, guard: WriteGuard = {}): Promise<'deducted' | 'sold_out'> {
  const { fence, sale } = guard;
  if (fence && !(await store.claim(fence))) throw new FencedError(fence, 'claim');
  const count = await store.read();
  if (count <= 0) return 'sold_out';
  if (workMs > 0) await sleep(workMs, guard.signal);
  guard.beforeWrite?.();
  guard.signal?.throwIfAborted();
  if (!fence) {
    await store.write(count - 1, sale);
  } else if (!(await store.writeFenced(fence, count - 1, sale))) {
    throw new FencedError(fence, 'write');
  }
  return 'deducted';
}
