// The HTML report: the key chart (holder-pause: oversold per leased lock, unfenced against fenced),
// the table and each scenario's description. Self-contained: inline SVG and CSS, nothing fetched.
import { reportCss } from '../../bench/report-style.js';
import { escapeXml as esc, renderBarChart, type BarRow, type Series } from '../../bench/svg.js';
import type { FaultRow } from '../row.js';
import { COLUMNS, DEFINITIONS, rowCells } from './cells.js';
import { catalogText, methodText } from './markdown.js';
import type { FaultReport } from './report.js';

const FENCING_SERIES: Series[] = [
  { name: 'unfenced', color: '#e45756' },
  { name: 'fenced', color: '#54a24b' },
];

/** One chart row per strategy (and store), one bar per variant; null where the variant was not run or answered 400. */
export function pauseChartRows(rows: readonly FaultRow[]): BarRow[] {
  const pause = rows.filter((r) => r.scenario === 'holder-pause');
  const labels = [...new Set(pause.map((r) => (r.store === 'mysql' ? r.strategy : `${r.strategy} (${r.store})`)))];
  return labels.map((label) => ({
    label,
    values: FENCING_SERIES.map((s) => {
      const r = pause.find((x) => x.variant === s.name && (x.store === 'mysql' ? x.strategy : `${x.strategy} (${x.store})`) === label);
      return r && !(r.answers['400 fenced'] ?? 0) ? Math.max(0, r.oversold) : null;
    }),
  }));
}

function cellClasses(r: FaultRow): string[] {
  const cls = COLUMNS.map(() => '');
  cls[COLUMNS.indexOf('oversold')] = r.oversold > 0 ? 'bad' : r.oversold < 0 ? 'warn' : 'good';
  cls[COLUMNS.indexOf('double deductions')] = (r.doubleDeductions ?? 0) > 0 ? 'bad' : '';
  cls[COLUMNS.indexOf('outcome unknown')] = r.outcomeUnknown > 0 ? 'warn' : '';
  cls[COLUMNS.indexOf('expected')] = r.asExpected ? 'good' : 'bad';
  return cls;
}

function table(rows: readonly FaultRow[]): string {
  const th = COLUMNS.map((h) => `<th>${esc(h)}</th>`).join('');
  const trs = rows.map((r, i) => {
    const cls = cellClasses(r);
    const shaded = i > 0 && rows[i - 1]?.scenario !== r.scenario ? ' class="first"' : '';
    const cells = rowCells(r).map((c, k) => `<td${cls[k] ? ` class="${cls[k]}"` : ''}>${esc(c)}</td>`).join('');
    return `<tr${shaded} title="${esc(r.details.join('\n'))}">${cells}</tr>`;
  });
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${trs.join('\n')}\n</tbody></table>`;
}

const CSS = `${reportCss(1400)}
td:nth-child(-n+4), th:nth-child(-n+4), td:nth-child(10), td:last-child { text-align: left; }
td:last-child { white-space: normal; min-width: 280px; }
tr.first td { border-top: 2px solid #999; }
p.bad { color: #b00020; font-weight: 700; }
ul.notes, ul.details { color: #555; } ul.details { font-size: 12.5px; }
`;

export function renderHtml(report: FaultReport): string {
  const chartRows = pauseChartRows(report.rows);
  const chart =
    chartRows.length === 0
      ? ''
      : `<h2>Holder frozen past its lease</h2>\n${renderBarChart({
          title: `Oversold units when a frozen holder writes after its lease ended (N = ${report.options.sizes.sell} sold meanwhile)`,
          unit: 'units oversold',
          series: FENCING_SERIES,
          rows: chartRows,
          alarm: (v) => v > 0,
        })}`;
  const scenarios = report.scenarios.map((s) => `<li><b>${esc(s.name)}</b> (${s.seconds.toFixed(0)} s): ${esc(s.description)}${s.error ? ` <b class="bad">FAILED: ${esc(s.error)}</b>` : ''}</li>`);
  const details = report.rows.map((r) => `<li>${esc(`${r.scenario} · ${r.strategy} · ${r.variant} · ${r.store}: answers ${JSON.stringify(r.answers)}; ${r.details.join('; ')}`)}</li>`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>stocklab faults ${esc(report.stamp)}</title>
<style>${CSS}</style></head>
<body>
<h1>stocklab: the fault lab</h1>
<p class="meta">${esc(methodText(report))}</p>
${chart}
<h2>All cases</h2>
${table(report.rows)}
<ul class="notes">${DEFINITIONS.map((d) => `<li>${esc(d)}</li>`).join('')}</ul>
<h2>The catalog's declarations</h2>
${catalogText(report).map((line) => `<p class="${report.catalogMismatches.length === 0 ? 'meta' : 'bad'}">${esc(line.replace(/^- /, ''))}</p>`).join('\n')}
<h2>Scenarios</h2>
<ul>${scenarios.join('\n')}</ul>
<h2>Details</h2>
<ul class="details">${details.join('\n')}</ul>
</body></html>
`;
}
