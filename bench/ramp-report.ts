// The ramp's report: a markdown table (stdout and the .md file) and an HTML page drawing the knee,
// goodput and refusals against concurrency, one line per strategy.
import { renderLineChart, type Line } from './line-chart.js';
import { P99_MARK_MS, p99Crossing, refusedOf, REQUESTS_PER_CLIENT, CLIENTS_PER_PROCESS, unexpectedOf, type RampReport, type RampStep } from './ramp.js';
import { reportCss } from './report-style.js';
import { escapeXml as esc } from './svg.js';
import { markdownTable } from './table.js';

export const RAMP_COLUMNS = ['strategy', 'clients', 'goodput/s', 'p50 ms', 'p99 ms', '200', '409', '503 by reason', 'other', 'no answer', 'oversold', 'note'] as const;

const int = (n: number) => String(Math.round(n));

/** "1200 busy (nginx), 40 lock_timeout": the step's 503s, most frequent first. */
function refusalsText(s: RampStep): string {
  const parts = Object.entries(s.byAnswer)
    .filter(([k]) => k.startsWith('503 '))
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${v} ${k.slice(4)}`);
  return parts.length > 0 ? parts.join(', ') : '0';
}

function noAnswerText(s: RampStep): string {
  const by = Object.entries(s.noAnswerBy).map(([k, v]) => `${v} ${k}`);
  return s.noAnswer === 0 ? '0' : `${s.noAnswer} (${by.join(', ')})`;
}

/** Answers neither 200, 409 nor 503 (a 502 from nginx, a 500): the ones a client cannot read as sold or not. */
function otherText(s: RampStep): string {
  const other = Object.entries(s.byAnswer).filter(([k]) => !/^(200|409|503)\b/.test(k));
  return other.length === 0 ? '0' : other.map(([k, v]) => `${v} ${k}`).join(', ');
}

function noteText(s: RampStep): string {
  return [s.clientLimit && `client limit: ${s.clientLimit}`, s.truncated && 'truncated'].filter(Boolean).join('; ');
}

export function rampCells(s: RampStep): string[] {
  return [
    s.strategy,
    String(s.clients),
    int(s.goodput),
    int(s.p50Ms),
    int(s.p99Ms),
    String(s.ok),
    String(s.byAnswer['409 sold_out'] ?? 0),
    refusalsText(s),
    otherText(s),
    noAnswerText(s),
    // with requests unanswered the figure is a lower bound
    `${s.oversold}${s.noAnswer > 0 ? ' (≥)' : ''}`,
    noteText(s),
  ];
}

function methodText(r: RampReport): string {
  const params = Object.entries(r.params).map(([k, v]) => `${k} ${v}`).join(', ');
  return (
    `Through ${r.target}: at each step N clients (keep-alive connections) send ${REQUESTS_PER_CLIENT}N requests for N units; ` +
    `the load is spread over one load process per ${CLIENTS_PER_PROCESS} clients; ${params}; a step is cut after ${r.maxSeconds} s. ` +
    `${r.machine.nproc} CPUs (${r.machine.cpu}), Node ${r.machine.node}; ${r.date}; ${(r.seconds / 60).toFixed(1)} min.`
  );
}

export const RAMP_DEFINITIONS = [
  'goodput/s = 200 answers ÷ the step\'s duration (first request to last answer). p50/p99 over every answer, refusals included.',
  '503 by reason: `busy (nginx)` is nginx past its capacity (it answered itself; no instance saw the request), `busy` an instance past MAX_IN_FLIGHT, the others the strategy\'s own refusals. All sold nothing.',
  'no answer = requests that got no HTTP answer: a reset, a socket closed unanswered (closed), a timeout. A client cannot tell those from a sale.',
  'oversold = 200 answers − units that left the store (read from MySQL or Redis directly).',
];

function crossingText(r: RampReport): string[] {
  return r.strategies.map((name) => {
    const at = p99Crossing(r, name);
    return `${name}: p99 passes ${P99_MARK_MS / 1000} s ${at === undefined ? 'at no step' : `at ${at} clients`}.`;
  });
}

/** The ramp's table and where each p99 passes 1 s: the docs' generated block (npm run docs -- … --ramp F). */
export function rampDocBlock(r: RampReport): string {
  return [methodText(r), '', markdownTable(RAMP_COLUMNS, r.results.map(rampCells)), '', ...crossingText(r).map((t) => `- ${t}`)].join('\n');
}

const SUMMARY_COLUMNS = ['strategy', 'clients', 'p99 passes 1 s at', 'best goodput/s', 'refused by nginx', 'no answer', 'oversold'] as const;

/** One row per strategy (the README's): where it saturates and what a client sees past that point. */
export function rampSummaryBlock(r: RampReport): string {
  const rows = r.strategies.map((name) => {
    const steps = r.results.filter((s) => s.strategy === name && !s.clientLimit);
    const at = p99Crossing(r, name);
    const nginxBusy = steps.reduce((n, s) => n + (s.byAnswer['503 busy (nginx)'] ?? 0), 0);
    return [
      name,
      `${Math.min(...steps.map((s) => s.clients))}–${Math.max(...steps.map((s) => s.clients))}`,
      at === undefined ? 'no step' : `${at} clients`,
      int(Math.max(...steps.map((s) => s.goodput))),
      `${nginxBusy} (fast 503 busy)`,
      String(steps.reduce((n, s) => n + s.noAnswer, 0)),
      String(steps.reduce((n, s) => n + s.oversold, 0)),
    ];
  });
  return markdownTable(SUMMARY_COLUMNS, rows);
}

export function renderRampMarkdown(r: RampReport): string {
  return [
    `## stocklab ramp ${r.stamp}`,
    '',
    methodText(r),
    '',
    markdownTable(RAMP_COLUMNS, r.results.map(rampCells)),
    '',
    ...crossingText(r).map((t) => `- ${t}`),
    '',
    ...RAMP_DEFINITIONS.map((d) => `- ${d}`),
  ].join('\n') + '\n';
}

const COLORS = ['#4c78a8', '#f58518', '#54a24b', '#e45756', '#72b7b2', '#b279a2', '#ff9da6', '#9d755d'];

function lines(r: RampReport, pick: (s: RampStep) => number): Line[] {
  return r.strategies.map((name, i) => ({
    name,
    color: COLORS[i % COLORS.length] ?? '#888',
    values: r.steps.map((clients) => {
      const s = r.results.find((x) => x.strategy === name && x.clients === clients);
      return s && !s.clientLimit ? pick(s) : null;
    }),
  }));
}

export function renderRampHtml(r: RampReport): string {
  const chart = (title: string, unit: string, pick: (s: RampStep) => number) =>
    renderLineChart({ title, unit, xLabel: 'concurrent clients', xs: r.steps, lines: lines(r, pick) });
  const charts = [
    chart('Goodput: units sold per second', 'sold/s', (s) => s.goodput),
    chart('Refusals: share of the requests answered 503 (nothing sold)', '% of requests', (s) => (100 * refusedOf(s)) / s.requests),
    chart('Requests with no HTTP answer, or an answer that cannot be read as sold or not (502, 500, outcome_unknown)', 'requests', (s) => s.noAnswer + unexpectedOf(s)),
    chart('p99 latency', 'ms', (s) => s.p99Ms),
  ];
  const th = RAMP_COLUMNS.map((h) => `<th>${esc(h)}</th>`).join('');
  const rows = r.results.map((s) => {
    const bad = s.noAnswer > 0 || s.oversold > 0 || unexpectedOf(s) > 0;
    return `<tr${bad ? ' class="bad"' : ''}>${rampCells(s).map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`;
  });
  const notes = [...crossingText(r), ...RAMP_DEFINITIONS.map((d) => d.replace(/`/g, ''))];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>stocklab ramp ${esc(r.stamp)}</title>
<style>${reportCss(1200)}
table td:first-child, table th:first-child, table td:nth-child(8), table td:nth-child(10), table td:nth-child(12) { text-align: left; white-space: normal; }
tr.bad td { background: #fde0e0; }
</style></head>
<body>
<h1>stocklab: the overload ramp</h1>
<p class="meta">${esc(methodText(r))}</p>
${charts.join('\n')}
<h2>Every step</h2>
<table><thead><tr>${th}</tr></thead><tbody>
${rows.join('\n')}
</tbody></table>
<ul class="notes">${notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>
</body></html>
`;
}
