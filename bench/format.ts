// Cell texts shared by the markdown table and the HTML report, so both say the same thing.
import { asExpected, TOPOLOGY_LABEL, verdictOf, type Ceiling, type RunResult } from './report.js';

export const int = (n: number): string => String(Math.round(n));

export function efficiencyText(e: number | null): string {
  return e === null ? 'n/a' : `${e.toFixed(2)}×`;
}

export function oversoldText(r: Pick<RunResult, 'oversold' | 'unanswered'>): string {
  const v = verdictOf(r);
  const atLeast = r.unanswered > 0 ? '≥ ' : '';
  if (v === 'oversold') return `OVERSOLD ${atLeast}${r.oversold}`;
  if (v === 'undersold') return `undersold ${-r.oversold - r.unanswered}+`;
  return r.unanswered > 0 ? `0 (${r.unanswered} unanswered)` : '0';
}

export function rateText(r: Pick<RunResult, 'rps' | 'truncated' | 'seconds'>): string {
  return r.truncated ? `${int(r.rps)} (truncated at ${r.seconds.toFixed(0)} s)` : int(r.rps);
}

/** The course's expectation, and whether this run agrees with it. */
export function courseText(r: Pick<RunResult, 'oversold' | 'unanswered' | 'expected'>): string {
  return asExpected(r) ? `${r.expected} ✓` : `${r.expected} ✗ (unexpected)`;
}

export const RUN_COLUMNS = ['family', 'strategy', 'store', 'instances', 'ok', 'sold out', 'errors', 'left', 'oversold', 'req/s', 'p50 ms', 'p99 ms', 'lock efficiency', 'course'] as const;

export function runCells(r: RunResult): string[] {
  return [
    r.family, r.strategy, r.store, TOPOLOGY_LABEL[r.topology], String(r.ok), String(r.soldOut), String(r.errors), String(r.left),
    oversoldText(r), rateText(r), String(r.p50Ms), String(r.p99Ms), efficiencyText(r.efficiency), courseText(r),
  ];
}

export const CEILING_COLUMNS = ['GET /noop (bench ceiling)', 'req/s', 'p50 ms', 'p99 ms', 'errors'] as const;

export function ceilingCells(c: Ceiling): string[] {
  return [TOPOLOGY_LABEL[c.topology], int(c.rps), String(c.p50Ms), String(c.p99Ms), String(c.errors)];
}
