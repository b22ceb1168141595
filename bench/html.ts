// The HTML report: the two charts (throughput, oversold; one instance against three) and the table.
// Self-contained: inline SVG and CSS, no script, no font or stylesheet fetched from anywhere.
import { CEILING_COLUMNS, ceilingCells, efficiencyText, int, RUN_COLUMNS, runCells } from './format.js';
import { asExpected, ceilingOf, TOPOLOGIES, TOPOLOGY_LABEL, verdictOf, type BenchReport, type RunResult, type Topology } from './report.js';
import { escapeXml as esc, renderBarChart, type BarRow, type Series } from './svg.js';

const COLORS: Record<Topology, string> = { one: '#4c78a8', three: '#f58518' };
const SERIES: Series[] = TOPOLOGIES.map((t) => ({ name: TOPOLOGY_LABEL[t], color: COLORS[t] }));

/** One chart row per strategy, one value per topology (null where it was not run). */
export function chartRows(report: BenchReport, pick: (r: RunResult) => number): BarRow[] {
  const cut = (name: string) => report.runs.some((r) => r.strategy === name && r.truncated);
  return report.catalog.map((s) => ({
    // * marks a run cut at --maxSeconds: its rate is real, its count covers only what was sent
    label: cut(s.name) ? `${s.name} *` : s.name,
    values: TOPOLOGIES.map((t) => {
      const r = report.runs.find((x) => x.strategy === s.name && x.topology === t);
      return r ? pick(r) : null;
    }),
  }));
}

interface Row {
  cells: string[];
  classes: string[];
  /** Shades every other strategy, so its one- and three-instance rows read as a pair. */
  shaded?: boolean;
}

function table(cls: string, header: readonly string[], rows: Row[]): string {
  const th = header.map((h) => `<th>${esc(h)}</th>`).join('');
  const trs = rows.map((r) => `<tr${r.shaded ? ' class="shaded"' : ''}>${r.cells.map((c, i) => `<td${r.classes[i] ? ` class="${r.classes[i]}"` : ''}>${esc(c)}</td>`).join('')}</tr>`);
  return `<table class="${cls}"><thead><tr>${th}</tr></thead><tbody>\n${trs.join('\n')}\n</tbody></table>`;
}

/** Per-cell CSS classes for a run row, matching RUN_COLUMNS. */
function runClasses(r: RunResult): string[] {
  const cls = RUN_COLUMNS.map(() => '');
  const v = verdictOf(r);
  cls[RUN_COLUMNS.indexOf('oversold')] = v === 'oversold' ? 'bad' : v === 'undersold' ? 'warn' : 'good';
  cls[RUN_COLUMNS.indexOf('course')] = asExpected(r) ? '' : 'warn';
  if (r.truncated) cls[RUN_COLUMNS.indexOf('req/s')] = 'warn';
  if (r.errors > 0) cls[RUN_COLUMNS.indexOf('errors')] = 'warn';
  return cls;
}

function shade(report: BenchReport, r: RunResult): boolean {
  return report.catalog.findIndex((s) => s.name === r.strategy) % 2 === 1;
}

const CSS = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222; margin: 24px; max-width: 1200px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.meta { color: #555; }
table { border-collapse: collapse; font-size: 12.5px; }
th, td { border: 1px solid #ddd; padding: 3px 7px; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; }
table.runs td:nth-child(-n+4), table.runs th:nth-child(-n+4), table td:first-child, table th:first-child { text-align: left; }
tr.shaded { background: #f7f7f7; }
td.bad { background: #fde0e0; color: #b00020; font-weight: 700; }
td.warn { background: #fff4d6; } td.good { color: #1b7f3b; }
svg.chart text { font: 12px system-ui, sans-serif; fill: #333; }
svg.chart .title { font-size: 15px; font-weight: 600; }
svg.chart .label { text-anchor: end; } svg.chart .tick { text-anchor: middle; fill: #777; font-size: 11px; }
svg.chart .unit { fill: #777; font-size: 11px; } svg.chart .na { fill: #999; font-style: italic; font-size: 11px; }
svg.chart .grid { stroke: #e6e6e6; } svg.chart .ref { stroke-width: 1.5; stroke-dasharray: 5 4; }
svg.chart .reflabel { font-size: 11px; } svg.chart .value { font-size: 11px; }
svg.chart .alarm { fill: #b00020; font-weight: 700; }
ul.notes { color: #555; }
`;

export function renderHtml(report: BenchReport): string {
  const o = report.options;
  const refLines = TOPOLOGIES.flatMap((t) => {
    const c = ceilingOf(report, t);
    return c ? [{ label: `GET /noop, ${TOPOLOGY_LABEL[t]}: ${int(c.rps)}`, value: c.rps, color: COLORS[t] }] : [];
  });
  const throughput = renderBarChart({
    title: 'Throughput per strategy (higher is faster; dashed: the bench ceiling, GET /noop on the same path)',
    unit: 'req/s',
    series: SERIES,
    rows: chartRows(report, (r) => r.rps),
    refLines,
  });
  const oversold = renderBarChart({
    title: 'Oversold units per strategy (anything above 0 sold stock that was not there)',
    unit: 'units oversold',
    series: SERIES,
    // A shortfall that unanswered requests explain is not a negative oversold: chart it as 0.
    rows: chartRows(report, (r) => (verdictOf(r) === 'exact' ? 0 : r.oversold)),
    alarm: (v) => v > 0,
  });
  const ref = report.runs.find((r) => r.strategy === report.reference && r.topology === 'one');
  const summary = [
    `${o.requests} requests × ${o.connections} connections per run against ${o.initial} units, workMs ${o.workMs}` +
      `${o.ttlMs !== undefined ? `, ttlMs ${o.ttlMs}` : ''}${o.waitMs !== undefined ? `, waitMs ${o.waitMs}` : ''}, each run cut at ${o.maxSeconds} s.`,
    `Machine: ${report.machine.nproc} CPUs (${report.machine.cpu}), Node ${report.machine.node}, ${report.machine.platform}. Run ${report.date}.`,
    `Target: ${report.target.three} (3 instances via nginx)${report.target.one ? `, ${report.target.one} (1 instance)` : ''}, from ${report.target.source}.`,
  ];
  const defs = [
    'oversold = 200 answers − units that really left the store (initial − left, read from MySQL or Redis directly, not through the service).',
    'A request with no answer (cut off when a run hits its time bound, or timed out) may still have sold a unit, so oversold is then a lower bound (≥), and a count short by up to that many is not called undersold.',
    `lock efficiency = req/s ÷ req/s of ${report.reference} on one instance${ref ? ` (${int(ref.rps)} req/s, ${efficiencyText(1)})` : ''}: the serialization limit of the same critical section.`,
    'If a strategy comes close to the GET /noop ceiling, the bench or the HTTP path, not the strategy, was the limit.',
    `* in a chart: at least one of that strategy's runs was cut at ${o.maxSeconds} s (truncated).`,
    ...report.notes,
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>stocklab bench ${esc(report.stamp)}</title>
<style>${CSS}</style></head>
<body>
<h1>stocklab: the oversell comparison</h1>
${summary.map((s) => `<p class="meta">${esc(s)}</p>`).join('\n')}
<h2>Throughput</h2>
${throughput}
<h2>Oversold</h2>
${oversold}
<h2>Bench ceiling</h2>
${table('ceiling', CEILING_COLUMNS, report.ceilings.map((c) => ({ cells: ceilingCells(c), classes: [] })))}
<h2>All runs</h2>
${table('runs', RUN_COLUMNS, report.runs.map((r) => ({ cells: runCells(r), classes: runClasses(r), shaded: shade(report, r) })))}
<ul class="notes">${defs.map((d) => `<li>${esc(d)}</li>`).join('')}</ul>
</body></html>
`;
}
