// Every entity, listed explicitly (like the migrations) so the same set loads under tsx, vitest and a build.
import { LockRow } from './lock-row.js';
import { StockRow } from './stock.js';

export { LockRow, StockRow };
export const entities = [StockRow, LockRow];
