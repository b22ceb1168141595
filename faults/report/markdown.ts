// The fault table as markdown: what stdout shows and what the .md file holds.
import { markdownTable } from '../../bench/table.js';
import { COLUMNS, DEFINITIONS, rowCells } from './cells.js';
import type { FaultReport } from './report.js';

export function methodText(report: FaultReport): string {
  const o = report.options;
  const only = o.strategies ? ` Strategies: ${o.strategies.join(', ')} only.` : '';
  return (
    `Scenarios: ${o.scenarios.join(', ')}.${only} ${o.sizes.initial} units per case, N = ${o.sizes.sell} sold while a holder is frozen, ${o.sizes.inFlight} clients sending when a store stops. ` +
    `${report.machine.nproc} CPUs (${report.machine.cpu}), Node ${report.machine.node}; ${report.date}; ${(report.seconds / 60).toFixed(1)} min.`
  );
}

/** The catalog check's verdict, one line, then each mismatch. */
export function catalogText(report: FaultReport): string[] {
  const n = report.catalogDeclarations;
  if (report.catalogMismatches.length === 0) return [`GET /strategies declares fault outcomes (expected.faults) for ${n} strategies; every row it declares something about agrees.`];
  return [`GET /strategies declares fault outcomes for ${n} strategies, and some the lab did not measure:`, ...report.catalogMismatches.map((m) => `- ${m}`)];
}

/** What stdout shows: the heading, the method, the table, how to read it and the catalog check. */
export function renderTable(report: FaultReport): string {
  const parts = [`## stocklab faults ${report.stamp}`, '', methodText(report), '', markdownTable(COLUMNS, report.rows.map(rowCells)), '', ...DEFINITIONS.map((d) => `- ${d}`), '', ...catalogText(report)];
  return parts.join('\n') + '\n';
}

/** The .md file: the table, then each scenario's description, what was not as expected and every row's details. */
export function renderMarkdown(report: FaultReport): string {
  const failed = report.rows.filter((r) => !r.asExpected);
  const parts = [
    renderTable(report),
    '### Scenarios',
    '',
    ...report.scenarios.map((s) => `- **${s.name}** (${s.seconds.toFixed(0)} s): ${s.description}${s.error ? ` **FAILED: ${s.error}**` : ''}`),
    '',
    `### Not as expected (${failed.length})`,
    '',
    ...(failed.length === 0 ? ['None.'] : failed.map((r) => `- ${r.scenario} · ${r.strategy} · ${r.variant} · ${r.store}: ${r.details.join('; ')}`)),
    '',
    '### Details',
    '',
    ...report.rows.map((r) => `- ${r.scenario} · ${r.strategy} · ${r.variant} · ${r.store} (${(r.ms / 1000).toFixed(1)} s): answers ${JSON.stringify(r.answers)}; ${r.details.join('; ')}`),
  ];
  return parts.join('\n') + '\n';
}
