/** Where a read-then-write deduction reads and writes the count. */
export type StoreKind = 'mysql' | 'redis';

export interface StockStore {
  /** The current count; 0 when the row or key is missing. */
  read(): Promise<number>;
  /** Overwrites the count: the "write" of read-then-write, unsafe without a lock by design. */
  write(count: number): Promise<void>;
  /** Sets the count for a fresh run. */
  reset(count: number): Promise<void>;
}
