// What a row-lock deduction does while the row is locked, on MySQL or PostgreSQL alike: stop at
// pause=after-read (the lock held), find it sold out or work and take one unit.
import { sleep } from '../time.js';
import type { DeductRequest } from './strategy.js';

export type RowWork = (count: number) => Promise<{ count?: number; result: 'deducted' | 'sold_out' }>;

export function takeOneUnit(req: DeductRequest): RowWork {
  return async (count) => {
    req.hooks?.at?.('after-read');
    if (count <= 0) return { result: 'sold_out' };
    if (req.workMs > 0) await sleep(req.workMs);
    return { count: count - 1, result: 'deducted' };
  };
}
