// Every entity, listed explicitly (like the migrations) so the same set loads under tsx, vitest and a build.
import { LockRow } from './lock-row.js';
import { SaleRow } from './sale.js';
import { StockRow } from './stock.js';

export { LockRow, SaleRow, StockRow };
export const entities = [StockRow, LockRow, SaleRow];
