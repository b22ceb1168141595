// The HTML report: the two charts (throughput, oversold; one instance against three) and the table,
// in English and in Chinese with a switch (lang-switch.ts). Self-contained: inline SVG, CSS and one
// small script; no font or stylesheet fetched from anywhere.
import type { Lang } from '../../src/lang.js';
import { ceilingCells, ceilingHeader, int, RUN_COLUMNS, runCells, runHeader, runTableNotes } from './format.js';
import { bilingualPage } from '../lang-switch.js';
import { asExpected, ceilingOf, TOPOLOGIES, verdictOf, type BenchReport, type RunResult, type Topology } from './report.js';
import { reportCss } from '../report-style.js';
import { definitions, methodText } from './table.js';
import { escapeXml as esc, renderBarChart, type BarRow, type Range, type Series } from '../svg.js';
import { BENCH_WORDS } from './words.js';

const COLORS: Record<Topology, string> = { one: '#4c78a8', three: '#f58518' };

/** One chart row per strategy, one value per topology (null where it was not run), with its min–max where `range` gives one. */
export function chartRows(report: BenchReport, pick: (r: RunResult) => number, range?: (r: RunResult) => Range): BarRow[] {
  const cut = (name: string) => report.runs.some((r) => r.strategy === name && r.race.truncated);
  return report.catalog.map((s) => ({
    // * marks a race cut at --maxSeconds: its count covers only what was answered
    label: cut(s.name) ? `${s.name} *` : s.name,
    values: TOPOLOGIES.map((t) => {
      const r = runOf(report, s.name, t);
      return r ? pick(r) : null;
    }),
    ...(range
      ? {
          ranges: TOPOLOGIES.map((t) => {
            const r = runOf(report, s.name, t);
            return r ? range(r) : null;
          }),
        }
      : {}),
  }));
}

const runOf = (report: BenchReport, strategy: string, t: Topology): RunResult | undefined =>
  report.runs.find((x) => x.strategy === strategy && x.topology === t);

/** A run's goodput over its rounds: the bar is the median, the whisker its min–max. */
export const goodputOf = (r: RunResult): number => r.throughput.goodput.median;
export const goodputRange = (r: RunResult): Range => ({ min: r.throughput.goodput.min, max: r.throughput.goodput.max });

interface Row {
  cells: string[];
  classes: string[];
  /** Shades every other strategy, so its one- and three-instance rows read as a pair. */
  shaded?: boolean;
}

function table(cls: string, header: readonly string[], rows: Row[]): string {
  const th = header.map((h) => `<th>${esc(h)}</th>`).join('');
  const trs = rows.map(
    (r) =>
      `<tr${r.shaded ? ' class="shaded"' : ''}>${r.cells.map((c, i) => `<td${r.classes[i] ? ` class="${r.classes[i]}"` : ''}>${esc(c)}</td>`).join('')}</tr>`,
  );
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
export function liveViewNote(strategy: string, lang: Lang = 'en', port = 8090): string {
  const url = esc(`http://127.0.0.1:${port}/?strategy=${encodeURIComponent(strategy)}`);
  return lang === 'zh'
    ? `<p class="meta" id="live-view">时空图：压测不记录每个请求的时间。运行 <code>npm run live</code> 并打开 <code>${url}</code>（用 <code>?strategy=NAME</code> 选任意策略；端口为 LIVE_PORT），在本机集群上跑这个策略，每次持锁是一条横条，每个实例一条泳道，重叠会标出；在那里导出的运行（回放、HTML）可离线打开，两次运行可以并排对比。</p>`
    : `<p class="meta" id="live-view">Space-time view: this bench has no per-request timings. Run <code>npm run live</code> and open <code>${url}</code> (any strategy by <code>?strategy=NAME</code>; the port is LIVE_PORT) to race it on the native cluster and see each hold of its lock as a bar on one lane per instance, overlaps marked; a run exported there (replay, HTML) opens offline, and two recorded runs show side by side.</p>`;
}

export function renderHtml(report: BenchReport): string {
  return bilingualPage({ en: `stocklab bench ${report.stamp}`, zh: `stocklab 压测 ${report.stamp}` }, CSS, (lang) => reportBody(report, lang));
}

/** The report in one language: the same charts and tables, its words from BENCH_WORDS. */
function reportBody(report: BenchReport, lang: Lang): string {
  const w = BENCH_WORDS[lang];
  const series: Series[] = TOPOLOGIES.map((t) => ({ name: w.topology[t], color: COLORS[t] }));
  const refLines = TOPOLOGIES.flatMap((t) => {
    const c = ceilingOf(report, t);
    return c ? [{ label: `GET /noop, ${w.topology[t]}: ${int(c.autocannon.median)}`, value: c.autocannon.median, color: COLORS[t] }] : [];
  });
  const throughput = renderBarChart({
    title: w.html.goodputChart(report.options.rounds),
    unit: w.html.soldPerSecond,
    notMeasured: w.html.notMeasured,
    series,
    rows: chartRows(report, goodputOf, goodputRange),
    refLines,
  });
  const oversold = renderBarChart({
    title: w.html.oversoldChart,
    unit: w.html.unitsOversold,
    notMeasured: w.html.notMeasured,
    series,
    // A shortfall that unanswered requests explain is not a negative oversold: chart it as 0.
    rows: chartRows(report, (r) => (verdictOf(r.worst) === 'exact' ? 0 : r.worst.oversold)),
    alarm: (v) => v > 0,
  });
  const summary = [
    methodText(report, lang),
    w.html.machine(report.machine.platform, report.target.three, report.target.one ?? undefined, report.target.source),
  ];
  const defs = [
    ...definitions(lang),
    w.html.ceilingNote,
    w.html.truncatedNote(report.options.maxSeconds),
    ...runTableNotes(report.runs, lang),
    ...report.notes,
  ];
  return `<h1>${esc(w.html.title)}</h1>
${summary.map((s) => `<p class="meta">${esc(s)}</p>`).join('\n')}
<h2>${esc(w.html.goodput)}</h2>
${throughput}
<h2>${esc(w.html.oversold)}</h2>
${oversold}
<h2>${esc(w.html.ceiling)}</h2>
${table(
  'ceiling',
  ceilingHeader(lang),
  report.ceilings.map((c) => ({ cells: ceilingCells(c, lang), classes: [] })),
)}
<h2>${esc(w.html.allRuns)}</h2>
${table(
  'runs',
  runHeader(lang),
  report.runs.map((r) => ({ cells: runCells(r, lang), classes: runClasses(r), shaded: shade(report, r) })),
)}
${liveViewNote(report.runs.find((r) => verdictOf(r.worst) === 'oversold')?.strategy ?? 'none', lang)}
<ul class="notes">${defs.map((d) => `<li>${esc(d)}</li>`).join('')}</ul>`;
}
