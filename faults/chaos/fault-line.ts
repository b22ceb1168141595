// A chaos fault as one line of text, for the report's list and the timeline's tooltips.
import type { FaultEvent } from './history.js';

/** One fault as a line: its window, kind and target, what it cut (a partition) and what happened on the way. */
export function faultLine(f: FaultEvent): string {
  const window = `${(f.injectedMs / 1000).toFixed(1)}–${f.healedMs === undefined ? '?' : (f.healedMs / 1000).toFixed(1)} s`;
  const cut = f.partition ? ` (${f.partition.text}${f.partition.healMs !== undefined && f.partition.healMs !== f.healedMs ? `; links healed at ${(f.partition.healMs / 1000).toFixed(1)} s` : ''})` : '';
  return `${window} ${f.kind} ${f.target}${cut}${f.note ? `: ${f.note}` : ''}`;
}
