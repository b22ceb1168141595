// The HTML report: the key chart (holder-pause: oversold per leased lock, unfenced against fenced),
// the table and each scenario's description, in English and in Chinese with a switch (the bench's
// lang-switch.ts). Self-contained: inline SVG, CSS and one small script; nothing fetched.
import { bilingualPage } from '../../report/lang-switch.js';
import { reportCss } from '../../report/report-style.js';
import { escapeXml as esc, renderBarChart, type BarRow, type Series } from '../../report/svg.js';
import type { Lang } from '../../src/lang.js';
import type { FaultRow } from '../row.js';
import { COLUMNS, rowCells } from './cells.js';
import { catalogText, faultHeader, methodText } from './markdown.js';
import type { FaultReport } from './report.js';
import { FAULT_WORDS } from './words.js';
import { BENCH_WORDS } from '../../report/bench/words.js';

/** The chart's two bars per lock: the holder-pause variants, by their names in the rows. */
const FENCING_SERIES = [
  { name: 'unfenced', color: '#e45756' },
  { name: 'fenced', color: '#54a24b' },
] as const satisfies readonly Series[];

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

function table(rows: readonly FaultRow[], lang: Lang): string {
  const th = faultHeader(lang)
    .map((h) => `<th>${esc(h)}</th>`)
    .join('');
  const trs = rows.map((r, i) => {
    const cls = cellClasses(r);
    const shaded = i > 0 && rows[i - 1]?.scenario !== r.scenario ? ' class="first"' : '';
    const cells = rowCells(r)
      .map((c, k) => `<td${cls[k] ? ` class="${cls[k]}"` : ''}>${esc(c)}</td>`)
      .join('');
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
  return bilingualPage({ en: `stocklab faults ${report.stamp}`, zh: `stocklab 故障实验 ${report.stamp}` }, CSS, (lang) => reportBody(report, lang));
}

/** The report in one language; the scenarios' descriptions and the rows' details stay as the code writes them. */
function reportBody(report: FaultReport, lang: Lang): string {
  const w = FAULT_WORDS[lang];
  const chartRows = pauseChartRows(report.rows);
  const chart =
    chartRows.length === 0
      ? ''
      : `<h2>${esc(w.html.holderFrozen)}</h2>\n${renderBarChart({
          title: w.html.pauseChart(report.options.sizes.sell),
          unit: w.html.unitsOversold,
          notMeasured: BENCH_WORDS[lang].html.notMeasured,
          series: FENCING_SERIES.map((s) => ({ ...s, name: w.html[s.name] })),
          rows: chartRows,
          alarm: (v) => v > 0,
        })}`;
  const scenarios = report.scenarios.map(
    (s) =>
      `<li><b>${esc(s.name)}</b> (${s.seconds.toFixed(0)} s): ${esc(s.description)}${s.error ? ` <b class="bad">${esc(w.failed)}: ${esc(s.error)}</b>` : ''}</li>`,
  );
  const details = report.rows.map(
    (r) => `<li>${esc(`${r.scenario} · ${r.strategy} · ${r.variant} · ${r.store}: ${w.answers} ${JSON.stringify(r.answers)}; ${r.details.join('; ')}`)}</li>`,
  );
  return `<h1>${esc(w.html.title)}</h1>
<p class="meta">${esc(methodText(report, lang))}</p>
${chart}
<h2>${esc(w.html.allCases)}</h2>
${table(report.rows, lang)}
<ul class="notes">${w.definitions.map((d) => `<li>${esc(d)}</li>`).join('')}</ul>
<h2>${esc(w.html.catalog)}</h2>
${catalogText(report, lang)
  .map((line) => `<p class="${report.catalogMismatches.length === 0 ? 'meta' : 'bad'}">${esc(line.replace(/^- /, ''))}</p>`)
  .join('\n')}
<h2>${esc(w.scenarios)}</h2>
<p class="meta">${esc(w.html.descriptionsNote)}</p>
<ul>${scenarios.join('\n')}</ul>
<h2>${esc(w.details)}</h2>
<ul class="details">${details.join('\n')}</ul>`;
}
