import type { Fence } from '../fencing.js';

/** Where a read-then-write deduction reads and writes the count. */
export type StoreKind = 'mysql' | 'redis' | 'postgres';

/**
 * A request id to record with a deduction (X-Request-Id), in the same atomic step as the write, so
 * the record exists exactly when the unit left: the fault lab counts double deductions with it.
 */
export type SaleId = string | undefined;

export interface StockStore {
  /** The current count; 0 when the row or key is missing. */
  read(): Promise<number>;
  /** Overwrites the count: the "write" of read-then-write, unsafe without a lock by design. */
  write(count: number, sale?: SaleId): Promise<void>;
  /**
   * Fencing, step one, before the read: raises the stock's fence for `fence.source` to its token;
   * false (nothing changed) when a holder with a larger or equal token has claimed it already.
   */
  claim(fence: Fence): Promise<boolean>;
  /** Fencing, step two: writes the count only while the fence still is this token; false when refused. */
  writeFenced(fence: Fence, count: number, sale?: SaleId): Promise<boolean>;
  /** Sets the count for a fresh run and forgets the recorded sales. Fences are never lowered. */
  reset(count: number): Promise<void>;
  /** How many times each recorded request id's deduction committed. */
  sales(): Promise<Record<string, number>>;
}
