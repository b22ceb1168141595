// The comparison as markdown: what stdout shows and what the .md file holds.
import { CEILING_COLUMNS, ceilingCells, RUN_COLUMNS, runCells, tieGroups } from './format.js';
import { MIN_RACE_UNITS } from './options.js';
import type { BenchReport } from './report.js';

const escape = (cell: string) => cell.replace(/\|/g, '\\|');

export function markdownTable(header: readonly string[], rows: string[][]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(escape).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** One paragraph on how the figures were taken, shared by the markdown and the HTML report. */
export function methodText(report: BenchReport): string {
  const o = report.options;
  const lease = `${o.ttlMs !== undefined ? `, ttlMs ${o.ttlMs}` : ''}${o.waitMs !== undefined ? `, waitMs ${o.waitMs}` : ''}`;
  const course = o.courseStrategies.length > 0 ? ` (${o.courseStrategies.join(' and ')}: the course's ${o.courseRequests} for ${o.courseInitial})` : '';
  return (
    `${o.rounds} rounds; in each, every strategy gets ${o.warmupSeconds} s of discarded warm-up and a ${o.windowSeconds} s measured window ` +
    `at ${o.connections} connections, in a rotated order; workMs ${o.workMs}${lease}. Then one race each: ${raceText(o)}${course}. ` +
    `${report.machine.nproc} CPUs (${report.machine.cpu}), Node ${report.machine.node}; ${report.date}; ${(report.seconds / 60).toFixed(1)} min.`
  );
}

function raceText(o: BenchReport['options']): string {
  const extra = o.requests - o.initial;
  return o.raceSeconds === undefined
    ? `${o.requests} requests for ${o.initial} units`
    : `sized from the strategy's goodput to last about ${o.raceSeconds} s (${MIN_RACE_UNITS} to ${o.initial} units, ${extra} more requests than units)`;
}

export const DEFINITIONS = [
  'goodput/s = 200 answers per second in the measured windows: median of the rounds (min–max). 503/s are refusals, counted apart; the stock never runs out during a window.',
  'race: 200 / 409 / 503 / left = answers of the race (more requests than its race units): sold, sold out, refused (503s that sold nothing), and the units left in the store; a 503 outcome_unknown (the write was sent, not confirmed) is counted apart. oversold = 200 answers − units that really left the store (read from MySQL or Redis directly): the worst of the race and of every window, never a median. With unanswered requests it is a lower bound (≥).',
  'vs mutex = median goodput ÷ median goodput of mutex on one instance, the serialization limit of the same critical section.',
  'rank = 1 + the strategies on the same topology that were faster in every round. (tie) = its range overlaps another\'s: the repeats cannot tell them apart.',
];

export function renderMarkdown(report: BenchReport): string {
  const ties = tieGroups(report.runs);
  const parts = [
    `## stocklab bench ${report.stamp}`,
    '',
    methodText(report),
    '',
    markdownTable(CEILING_COLUMNS, report.ceilings.map(ceilingCells)),
    '',
    markdownTable(RUN_COLUMNS, report.runs.map(runCells)),
    '',
    ...DEFINITIONS.map((d) => `- ${d}`),
    ...(ties.length > 0 ? ['', `Ties (overlapping ranges): ${ties.join('; ')}.`] : []),
    ...report.notes.map((n) => `\n${n}`),
  ];
  return parts.join('\n') + '\n';
}
