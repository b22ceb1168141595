// The comparison as markdown: what stdout shows and what the .md file holds.
import { CEILING_COLUMNS, ceilingCells, RUN_COLUMNS, runCells } from './format.js';
import type { BenchReport } from './report.js';

const escape = (cell: string) => cell.replace(/\|/g, '\\|');

export function markdownTable(header: readonly string[], rows: string[][]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(escape).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export function renderMarkdown(report: BenchReport): string {
  const o = report.options;
  const parts = [
    `## stocklab bench ${report.stamp}`,
    '',
    `${o.requests} requests × ${o.connections} connections per run, ${o.initial} units at the start, workMs ${o.workMs}` +
      `${o.ttlMs !== undefined ? `, ttlMs ${o.ttlMs}` : ''}${o.waitMs !== undefined ? `, waitMs ${o.waitMs}` : ''}; ` +
      `${report.machine.nproc} CPUs (${report.machine.cpu}), Node ${report.machine.node}; ${report.date}.`,
    '',
    markdownTable(CEILING_COLUMNS, report.ceilings.map(ceilingCells)),
    '',
    markdownTable(RUN_COLUMNS, report.runs.map(runCells)),
    '',
    `oversold = 200 answers − units that left the store (read from the store itself); with unanswered requests (a run cut at --maxSeconds, or timeouts) it is a lower bound, marked ≥. ` +
      `lock efficiency = req/s ÷ req/s of ${report.reference} on one instance (the serialization limit of the same critical section).`,
    ...report.notes.map((n) => `\n${n}`),
  ];
  return parts.join('\n') + '\n';
}
