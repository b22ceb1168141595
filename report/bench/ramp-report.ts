// The ramp's report: a markdown table (stdout and the .md file) and an HTML page drawing the knee,
// goodput and refusals against concurrency, one line per strategy.
import { renderLineChart, type Line } from '../line-chart.js';
import { P99_MARK_MS, p99Crossing, refusedOf, REQUESTS_PER_CLIENT, CLIENTS_PER_PROCESS, unexpectedOf, type RampReport, type RampStep } from './ramp-results.js';
import { reportCss } from '../report-style.js';
import { escapeXml as esc } from '../svg.js';
import { markdownTable } from '../table.js';
import { bilingualPage } from '../lang-switch.js';
import { RAMP_COLUMNS, RAMP_SUMMARY_COLUMNS, RAMP_WORDS } from './ramp-words.js';
import { runMachine } from './words.js';
import type { Lang } from '../../src/lang.js';

export { RAMP_COLUMNS };

const header = (lang: Lang) => RAMP_COLUMNS.map((c) => RAMP_WORDS[lang].columns[c]);

const int = (n: number) => String(Math.round(n));

/** "1200 busy (nginx), 40 lock_timeout": the step's 503s, most frequent first. */
function refusalsText(s: RampStep, lang: Lang): string {
  const parts = Object.entries(s.byAnswer)
    .filter(([k]) => k.startsWith('503 '))
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${v} ${k.slice(4)}`);
  return parts.length > 0 ? parts.join(RAMP_WORDS[lang].and) : '0';
}

function noAnswerText(s: RampStep, lang: Lang): string {
  const by = Object.entries(s.noAnswerBy).map(([k, v]) => `${v} ${k}`);
  return s.noAnswer === 0 ? '0' : lang === 'zh' ? `${s.noAnswer}（${by.join('，')}）` : `${s.noAnswer} (${by.join(', ')})`;
}

/** Answers neither 200, 409 nor 503 (a 502 from nginx, a 500): the ones a client cannot read as sold or not. */
function otherText(s: RampStep, lang: Lang): string {
  const other = Object.entries(s.byAnswer).filter(([k]) => !/^(200|409|503)\b/.test(k));
  return other.length === 0 ? '0' : other.map(([k, v]) => `${v} ${k}`).join(RAMP_WORDS[lang].and);
}

function noteText(s: RampStep, lang: Lang): string {
  const w = RAMP_WORDS[lang];
  return [s.clientLimit && w.clientLimit(s.clientLimit), s.truncated && w.truncated].filter(Boolean).join(w.then);
}

export function rampCells(s: RampStep, lang: Lang = 'en'): string[] {
  return [
    s.strategy,
    String(s.clients),
    int(s.goodput),
    int(s.p50Ms),
    int(s.p99Ms),
    String(s.ok),
    String(s.byAnswer['409 sold_out'] ?? 0),
    refusalsText(s, lang),
    otherText(s, lang),
    noAnswerText(s, lang),
    // with requests unanswered the figure is a lower bound
    `${s.oversold}${s.noAnswer > 0 ? ' (≥)' : ''}`,
    noteText(s, lang),
  ];
}

function methodText(r: RampReport, lang: Lang): string {
  const params = Object.entries(r.params)
    .map(([k, v]) => `${k} ${v}`)
    .join(RAMP_WORDS[lang].and);
  return RAMP_WORDS[lang].method({
    ...runMachine(r),
    target: r.target,
    requestsPerClient: REQUESTS_PER_CLIENT,
    clientsPerProcess: CLIENTS_PER_PROCESS,
    params,
    maxSeconds: r.maxSeconds,
  });
}

function crossingText(r: RampReport, lang: Lang): string[] {
  return r.strategies.map((name) => RAMP_WORDS[lang].crossing(name, P99_MARK_MS / 1000, p99Crossing(r, name)));
}

/** The ramp's table and where each p99 passes 1 s: the docs' generated block (npm run docs -- … --ramp F). */
export function rampDocBlock(r: RampReport, lang: Lang = 'en'): string {
  return [
    methodText(r, lang),
    '',
    markdownTable(
      header(lang),
      r.results.map((s) => rampCells(s, lang)),
    ),
    '',
    ...crossingText(r, lang).map((t) => `- ${t}`),
  ].join('\n');
}

/** One row per strategy (the README's): where it saturates and what a client sees past that point. */
export function rampSummaryBlock(r: RampReport, lang: Lang = 'en'): string {
  const w = RAMP_WORDS[lang];
  const rows = r.strategies.map((name) => {
    const steps = r.results.filter((s) => s.strategy === name && !s.clientLimit);
    const at = p99Crossing(r, name);
    const nginxBusy = steps.reduce((n, s) => n + (s.byAnswer['503 busy (nginx)'] ?? 0), 0);
    return [
      name,
      `${Math.min(...steps.map((s) => s.clients))}–${Math.max(...steps.map((s) => s.clients))}`,
      at === undefined ? w.noStep : w.atClients(at),
      int(Math.max(...steps.map((s) => s.goodput))),
      w.nginxBusy(nginxBusy),
      String(steps.reduce((n, s) => n + s.noAnswer, 0)),
      String(steps.reduce((n, s) => n + s.oversold, 0)),
    ];
  });
  return markdownTable(
    RAMP_SUMMARY_COLUMNS.map((c) => w.summaryColumns[c]),
    rows,
  );
}

/** The ramp as markdown in `lang` (npm run bench -- --ramp --lang zh): the table, its crossings and how to read it. */
export function renderRampMarkdown(r: RampReport, lang: Lang = 'en'): string {
  return (
    [
      `## ${RAMP_WORDS[lang].html.pageTitle(r.stamp)}`,
      '',
      methodText(r, lang),
      '',
      markdownTable(
        header(lang),
        r.results.map((s) => rampCells(s, lang)),
      ),
      '',
      ...crossingText(r, lang).map((t) => `- ${t}`),
      '',
      ...RAMP_WORDS[lang].definitions.map((d) => `- ${d}`),
    ].join('\n') + '\n'
  );
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

const CSS = `${reportCss(1200)}
table td:first-child, table th:first-child, table td:nth-child(8), table td:nth-child(10), table td:nth-child(12) { text-align: left; white-space: normal; }
tr.bad td { background: #fde0e0; }
`;

/** The report in one language: the method, four charts against the clients, every step and how to read it. */
function htmlBody(r: RampReport, lang: Lang): string {
  const w = RAMP_WORDS[lang];
  const chart = (title: string, unit: string, pick: (s: RampStep) => number) =>
    renderLineChart({ title, unit, xLabel: w.html.clients, xs: r.steps, lines: lines(r, pick), at: w.html.at });
  const charts = [
    chart(w.html.goodput, w.html.soldPerSecond, (s) => s.goodput),
    chart(w.html.refusals, w.html.percent, (s) => (100 * refusedOf(s)) / s.requests),
    chart(w.html.unreadable, w.html.requests, (s) => s.noAnswer + unexpectedOf(s)),
    chart(w.html.p99, w.html.ms, (s) => s.p99Ms),
  ];
  const th = header(lang)
    .map((h) => `<th>${esc(h)}</th>`)
    .join('');
  const rows = r.results.map((s) => {
    const bad = s.noAnswer > 0 || s.oversold > 0 || unexpectedOf(s) > 0;
    return `<tr${bad ? ' class="bad"' : ''}>${rampCells(s, lang)
      .map((c) => `<td>${esc(c)}</td>`)
      .join('')}</tr>`;
  });
  const notes = [...crossingText(r, lang), ...w.definitions.map((d) => d.replace(/`/g, ''))];
  return `<h1>${esc(w.html.title)}</h1>
<p class="meta">${esc(methodText(r, lang))}</p>
${charts.join('\n')}
<h2>${esc(w.html.everyStep)}</h2>
<table><thead><tr>${th}</tr></thead><tbody>
${rows.join('\n')}
</tbody></table>
<ul class="notes">${notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`;
}

export function renderRampHtml(r: RampReport): string {
  return bilingualPage({ en: RAMP_WORDS.en.html.pageTitle(r.stamp), zh: RAMP_WORDS.zh.html.pageTitle(r.stamp) }, CSS, (lang) => htmlBody(r, lang));
}
