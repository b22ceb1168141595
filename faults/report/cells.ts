// Cell texts shared by the markdown table and the HTML report, so both say the same thing.
import { isUndocumentedKey } from '../client.js';
import type { FaultRow } from '../row.js';

export const COLUMNS = [
  'scenario',
  'strategy',
  'variant',
  'store',
  'sold',
  'deducted',
  'oversold',
  'double deductions',
  'outcome unknown',
  '503s',
  'recover ms',
  'expected',
] as const;

/** "OVERSOLD 20", "0", "−1 (took more than it sold)". */
export function oversoldText(r: Pick<FaultRow, 'oversold'>): string {
  if (r.oversold > 0) return `OVERSOLD ${r.oversold}`;
  if (r.oversold < 0) return `${r.oversold} (${-r.oversold} deducted unsold)`;
  return '0';
}

/** "3 lock_timeout, 1 fenced" or "–"; an undocumented answer (a bug) is named after them: "+ 1 × 500 internal (undocumented)". */
export function refusedText(r: Pick<FaultRow, 'refused' | 'answers'>): string {
  const parts = Object.entries(r.refused).map(([error, n]) => `${n} ${error}`);
  const odd = Object.entries(r.answers)
    .filter(([key]) => isUndocumentedKey(key))
    .map(([key, n]) => `${n} × ${key} (undocumented)`);
  return [parts.length > 0 ? parts.join(', ') : '–', ...odd].join(' + ');
}

export function recoverText(r: Pick<FaultRow, 'recoverMs' | 'recoverBoundMs'>): string {
  if (r.recoverMs !== null) return String(r.recoverMs);
  return r.recoverBoundMs === undefined ? '–' : `never (> ${r.recoverBoundMs})`;
}

export function expectedText(r: Pick<FaultRow, 'expected' | 'asExpected'>): string {
  return `${r.asExpected ? '✓' : '✗'} ${r.expected}`;
}

export function rowCells(r: FaultRow): string[] {
  return [
    r.scenario,
    r.strategy,
    r.variant,
    r.store,
    String(r.sold),
    String(r.deducted),
    oversoldText(r),
    r.doubleDeductions === null ? 'n/a (no /sales)' : String(r.doubleDeductions),
    String(r.outcomeUnknown),
    refusedText(r),
    recoverText(r),
    expectedText(r),
  ];
}
