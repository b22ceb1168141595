// The HTML report: the two charts (throughput, oversold; one instance against three) and the table.
// Self-contained: inline SVG and CSS, no script, no font or stylesheet fetched from anywhere.
import { CEILING_COLUMNS, ceilingCells, int, RUN_COLUMNS, runCells, tieGroups } from './format.js';
import { asExpected, ceilingOf, TOPOLOGIES, TOPOLOGY_LABEL, verdictOf, type BenchReport, type RunResult, type Topology } from './report.js';
import { reportCss } from './report-style.js';
import { DEFINITIONS, methodText } from './table.js';
import { escapeXml as esc, renderBarChart, type BarRow, type Series } from './svg.js';

const COLORS: Record<Topology, string> = { one: '#4c78a8', three: '#f58518' };
const SERIES: Series[] = TOPOLOGIES.map((t) => ({ name: TOPOLOGY_LABEL[t], color: COLORS[t] }));

/** One chart row per strategy, one value per topology (null where it was not run). */
export function chartRows(report: BenchReport, pick: (r: RunResult) => number): BarRow[] {
  const cut = (name: string) => report.runs.some((r) => r.strategy === name && r.race.truncated);
  return report.catalog.map((s) => ({
    // * marks a race cut at --maxSeconds: its count covers only what was answered
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
  const v = verdictOf(r.worst);
  cls[RUN_COLUMNS.indexOf('oversold')] = v === 'oversold' ? 'bad' : v === 'undersold' ? 'warn' : 'good';
  cls[RUN_COLUMNS.indexOf('course')] = asExpected(r) ? '' : 'warn';
  if (r.race.truncated || r.race.unexpected > 0) cls[RUN_COLUMNS.indexOf('race: 200 / 409 / 503 / left')] = 'warn';
  if (r.throughput.refusedPerSec.median > 0) cls[RUN_COLUMNS.indexOf('503/s')] = 'warn';
  return cls;
}

function shade(report: BenchReport, r: RunResult): boolean {
  return report.catalog.findIndex((s) => s.name === r.strategy) % 2 === 1;
}

const CSS = `${reportCss(1200)}
table.runs td:nth-child(-n+4), table.runs th:nth-child(-n+4), table td:first-child, table th:first-child { text-align: left; }
tr.shaded { background: #f7f7f7; }
svg.chart .ref { stroke-width: 1.5; stroke-dasharray: 5 4; } svg.chart .reflabel { font-size: 11px; }
ul.notes { color: #555; }
`;

/** Where to see a strategy's holds in time: the bench times no single request, the live lab does. As text, no link: the report fetches and links nothing. */
export function liveViewNote(strategy: string, port = 8090): string {
  const url = `http://127.0.0.1:${port}/?strategy=${encodeURIComponent(strategy)}`;
  return `<p class="meta" id="live-view">Space-time view: this bench has no per-request timings. Run <code>npm run live</code> and open <code>${esc(url)}</code> (any strategy by <code>?strategy=NAME</code>; the port is LIVE_PORT) to race it on the native cluster and see each hold of its lock as a bar on one lane per instance, overlaps marked; a run exported there (replay, HTML) opens offline, and two recorded runs show side by side.</p>`;
}

export function renderHtml(report: BenchReport): string {
  const refLines = TOPOLOGIES.flatMap((t) => {
    const c = ceilingOf(report, t);
    return c ? [{ label: `GET /noop, ${TOPOLOGY_LABEL[t]}: ${int(c.autocannon.median)}`, value: c.autocannon.median, color: COLORS[t] }] : [];
  });
  const throughput = renderBarChart({
    title: `Goodput per strategy: units sold per second, median of ${report.options.rounds} rounds (dashed: GET /noop on the same path)`,
    unit: 'sold/s',
    series: SERIES,
    rows: chartRows(report, (r) => r.throughput.goodput.median),
    refLines,
  });
  const oversold = renderBarChart({
    title: 'Oversold units per strategy, worst of the race and every window (anything above 0 sold stock that was not there)',
    unit: 'units oversold',
    series: SERIES,
    // A shortfall that unanswered requests explain is not a negative oversold: chart it as 0.
    rows: chartRows(report, (r) => (verdictOf(r.worst) === 'exact' ? 0 : r.worst.oversold)),
    alarm: (v) => v > 0,
  });
  const summary = [
    methodText(report),
    `Machine: ${report.machine.platform}. Target: ${report.target.three} (3 instances via nginx)${report.target.one ? `, ${report.target.one} (1 instance)` : ''}, from ${report.target.source}.`,
  ];
  const ties = tieGroups(report.runs);
  const defs = [
    ...DEFINITIONS,
    'If a strategy comes close to the GET /noop ceiling, the load generator or the HTTP path, not the strategy, was the limit; the ceiling table compares the load generator with wrk.',
    `* in a chart: that strategy's race was cut at ${report.options.maxSeconds} s (truncated).`,
    ...(ties.length > 0 ? [`Ties (overlapping ranges): ${ties.join('; ')}.`] : []),
    ...report.notes,
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>stocklab bench ${esc(report.stamp)}</title>
<style>${CSS}</style></head>
<body>
<h1>stocklab: the oversell comparison</h1>
${summary.map((s) => `<p class="meta">${esc(s)}</p>`).join('\n')}
<h2>Goodput</h2>
${throughput}
<h2>Oversold</h2>
${oversold}
<h2>Bench ceiling</h2>
${table('ceiling', CEILING_COLUMNS, report.ceilings.map((c) => ({ cells: ceilingCells(c), classes: [] })))}
<h2>All runs</h2>
${table('runs', RUN_COLUMNS, report.runs.map((r) => ({ cells: runCells(r), classes: runClasses(r), shaded: shade(report, r) })))}
${liveViewNote(report.runs.find((r) => verdictOf(r.worst) === 'oversold')?.strategy ?? 'none')}
<ul class="notes">${defs.map((d) => `<li>${esc(d)}</li>`).join('')}</ul>
</body></html>
`;
}
