// The round-trip sweep's report: the links' own round trips, then per strategy k, the bound
// 1/(k·r), the measured goodput and its fraction of the bound at each r; as markdown and as HTML
// (both languages, report/lang-switch.ts) with a chart of goodput against the round trip.
import { renderLineChart, type Line } from '../line-chart.js';
import { int, microseconds, oversoldText, signedMicroseconds, spreadText } from './format.js';
import { verdictOf } from './report.js';
import { reportCss } from '../report-style.js';
import { escapeXml as esc } from '../svg.js';
import type { SweepCell, SweepReport, SweepRow } from './sweep-results.js';
import { markdownTable } from '../table.js';
import { bilingualPage } from '../lang-switch.js';
import { zhCell } from '../zh-cells.js';
import { SWEEP_WORDS } from './sweep-words.js';
import type { Lang } from '../../src/lang.js';

/** "OVERSOLD 12" in the report's language. */
const raceText = (c: SweepCell, lang: Lang) => (lang === 'zh' ? zhCell(oversoldText(c.race)) : oversoldText(c.race));

function linkRows(r: SweepReport, lang: Lang): string[][] {
  const w = SWEEP_WORDS[lang];
  return [
    [w.direct, microseconds(r.direct.mysql), microseconds(r.direct.redis)],
    ...r.linkTimes.map((t) => [w.throughForwarders(w.rtt(t.rttMs)), microseconds(t.mysql), microseconds(t.redis)]),
    ...(r.forwarderCost ? [[w.forwarderCost, signedMicroseconds(r.forwarderCost.mysql), signedMicroseconds(r.forwarderCost.redis)]] : []),
  ];
}

/** The links' table header: older reports timed 20 requests a link. */
function linkHeader(r: SweepReport, lang: Lang): string[] {
  return [SWEEP_WORDS[lang].oneRequest(r.linkSamples ?? 20), 'MySQL SELECT 1', 'Redis PING'];
}

function cellText(c: SweepCell, expected: SweepRow['expected'], lang: Lang): string[] {
  const w = SWEEP_WORDS[lang];
  const verdict = verdictOf(c.race);
  const race = verdict === 'exact' ? w.exact : `${raceText(c, lang)}${verdict === 'oversold' && expected === 'oversells' ? w.expectedPerInstance : ''}`;
  return [spreadText(c.goodput), c.bound === null ? '–' : int(c.bound), c.fraction === null ? '–' : c.fraction.toFixed(2), race];
}

function sweepHeader(r: SweepReport, lang: Lang): string[] {
  const w = SWEEP_WORDS[lang];
  return [w.strategy, 'k', ...r.rtts.flatMap((ms) => [w.soldAt(w.rtt(ms)), w.boundAt(w.rtt(ms)), w.fraction, w.race])];
}

function sweepRow(row: SweepRow, lang: Lang): string[] {
  return [row.strategy, row.k.toFixed(1), ...row.cells.flatMap((c) => cellText(c, row.expected, lang))];
}

/** "a, b and c" in a language. */
function list(items: readonly string[], lang: Lang): string {
  const w = SWEEP_WORDS[lang];
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(w.and)}${w.lastAnd}${items.at(-1)}`;
}

/**
 * What limits the strategies that are far below their bound, or above it: said in words. Those above
 * their bound at the same round trip share one reason, said once for the group.
 */
function readings(r: SweepReport, lang: Lang): string[] {
  const w = SWEEP_WORDS[lang];
  const out: string[] = [];
  for (const ms of r.rtts) {
    const above = r.rows.flatMap((row) =>
      row.cells
        .filter((c) => c.rttMs === ms && c.fraction !== null && c.fraction > 1)
        .map((c) => ({ name: row.strategy, times: (c.fraction as number).toFixed(1) })),
    );
    const [only] = above;
    if (above.length === 1 && only) out.push(`${w.aboveOne(only.name, w.rtt(ms), only.times)}${w.aboveWhy}`);
    else if (above.length > 1)
      out.push(
        `${w.aboveMany(
          w.rtt(ms),
          list(
            above.map((a) => w.aboveEach(a.name, a.times)),
            lang,
          ),
        )}${w.aboveWhyMany}`,
      );
  }
  for (const row of r.rows) for (const c of row.cells) if (c.fraction !== null && c.fraction < 0.5) out.push(belowHalf(row, c, lang));
  return out;
}

/** A strategy under half its bound: whether its goodput moved with the round trip at all, as measured. */
function belowHalf(row: SweepRow, c: SweepCell, lang: Lang): string {
  const w = SWEEP_WORDS[lang];
  const head = w.belowHalf(row.strategy, w.rtt(c.rttMs), c.fraction?.toFixed(2) ?? '–');
  const quickest = row.cells[0];
  if (!quickest || quickest === c || quickest.goodput.median <= 0) return `${head}${w.besidesRoundTrips}`;
  const kept = c.goodput.median / quickest.goodput.median;
  return kept >= 0.7
    ? `${head}${w.notTheRoundTrip(int(c.goodput.median), int(quickest.goodput.median), w.rtt(quickest.rttMs), kept.toFixed(2))}`
    : `${head}${w.costsMore(kept.toFixed(2), w.rtt(quickest.rttMs))}`;
}

/** The sweep's own notes (bench/sweep.ts) in a language; a note with no translation stays as written. */
function notes(r: SweepReport, lang: Lang): string[] {
  const known = Object.entries(SWEEP_WORDS.en.notes);
  return r.notes.map((n) => {
    const key = known.find(([, en]) => en === n)?.[0] as keyof typeof SWEEP_WORDS.en.notes | undefined;
    return key ? SWEEP_WORDS[lang].notes[key] : n;
  });
}

function methodText(r: SweepReport, lang: Lang): string {
  const w = SWEEP_WORDS[lang];
  return w.method({
    strategies: r.rows.length,
    rtts: r.rtts.map((ms) => w.rtt(ms)).join(w.and),
    rounds: r.rounds,
    windowSeconds: r.windowSeconds,
    connections: r.connections,
    date: r.date,
    nproc: r.machine.nproc,
    cpu: r.machine.cpu,
    node: r.machine.node,
    seconds: r.seconds.toFixed(0),
  });
}

/** The report's markdown after its heading: `intro` (how the run was made), the links' own round trips, every strategy against its bound, what limits those far from it, and the definitions. */
function sweepBody(r: SweepReport, intro: string, lang: Lang): string {
  const w = SWEEP_WORDS[lang];
  return [
    intro,
    '',
    markdownTable(linkHeader(r, lang), linkRows(r, lang)),
    '',
    markdownTable(
      sweepHeader(r, lang),
      r.rows.map((row) => sweepRow(row, lang)),
    ),
    '',
    ...[...readings(r, lang), ...notes(r, lang)].map((t) => `- ${t}`),
    '',
    ...w.definitions.map((d) => `- ${d}`),
  ].join('\n');
}

/** docs/results.md's block: the body, its method said as from `file`. */
export function sweepDocBlock(r: SweepReport, file: string, lang: Lang = 'en'): string {
  return sweepBody(r, SWEEP_WORDS[lang].from(file, methodText(r, lang)), lang);
}

/** RedLock's drift allowance (src/strategies/redlock.ts: driftFactor 0.01, plus 2 ms). */
const validityLeft = (ttlMs: number, rttMs: number) => ttlMs - (ttlMs * 0.01 + 2) - rttMs;

/**
 * docs/bench.md's lease block: a sweep run with a short --ttlMs, each strategy at each round trip
 * with what is left of the lease once it is held, and what its race sold and refused (503 lock_lost:
 * the lease ran out before the write).
 */
export function sweepLeaseBlock(r: SweepReport, file: string, lang: Lang = 'en'): string {
  const w = SWEEP_WORDS[lang];
  const ttl = r.params?.ttlMs;
  if (ttl === undefined) throw new Error(`${file}: the lease block needs a sweep run with --ttlMs`);
  const params = Object.entries(r.params ?? {})
    .map(([k, v]) => `\`${k}=${v}\``)
    .join(w.and);
  const rows = r.rows.flatMap((row) =>
    row.cells.map((c) => {
      const lost = c.race.byAnswer['503 lock_lost'] ?? 0;
      const left = validityLeft(ttl, c.rttMs);
      return [
        row.strategy,
        w.rtt(c.rttMs),
        left > 0 ? `${left.toFixed(1)} ms` : w.lease.none,
        int(c.goodput.median),
        String(c.race.ok),
        String(lost),
        String(c.race.refused - lost),
        verdictOf(c.race) === 'exact' ? w.exact : raceText(c, lang),
      ];
    }),
  );
  return [w.from(file, methodText(r, lang)), '', w.lease.params(params), '', markdownTable(w.lease.header, rows), '', `- ${w.lease.validity}`].join('\n');
}

/** The README's block: at the sweep's longest round trip, each strategy's goodput beside its loopback figure, k, the bound and the fraction. */
export function sweepSummaryBlock(r: SweepReport, file: string, resultsLink: string, lang: Lang = 'en'): string {
  const w = SWEEP_WORDS[lang];
  const far = r.rtts.length - 1;
  const at = r.rtts[far] as number;
  const header = [w.strategy, 'k', w.soldAt(w.rtt(r.rtts[0] as number)), w.soldAt(w.rtt(at)), w.boundAt(w.rtt(at)), w.fractionOfBound, w.races];
  const rows = r.rows.map((row) => {
    const near = row.cells[0];
    const c = row.cells[far];
    const each = row.cells.map((x) => w.raceAt(w.rtt(x.rttMs), verdictOf(x.race) === 'exact' ? w.exact : raceText(x, lang))).join(w.then);
    const races = row.cells.every((x) => verdictOf(x.race) === 'exact')
      ? w.exactAtEach
      : row.expected === 'oversells'
        ? `${each}${w.expectedPerInstance}`
        : each;
    return [
      row.strategy,
      row.k.toFixed(1),
      near ? int(near.goodput.median) : '–',
      c ? int(c.goodput.median) : '–',
      c?.bound == null ? '–' : int(c.bound),
      c?.fraction == null ? '–' : c.fraction.toFixed(2),
      races,
    ];
  });
  return [
    markdownTable(header, rows),
    '',
    w.summaryFrom(file, r.date.slice(0, 10), r.machine.nproc, r.rounds, resultsLink.split('#')[0] as string, resultsLink),
  ].join('\n');
}

/** The sweep as markdown in `lang` (npm run bench -- --rtt … --lang zh). */
export function renderSweepMarkdown(r: SweepReport, lang: Lang = 'en'): string {
  return `## ${SWEEP_WORDS[lang].html.pageTitle(r.stamp)}\n\n${sweepBody(r, methodText(r, lang), lang)}\n`;
}

const COLORS = ['#4c78a8', '#f58518', '#54a24b', '#e45756', '#72b7b2', '#b279a2', '#ff9da6', '#9d755d'];

const CSS = `${reportCss(1200)}
table td:first-child, table th:first-child { text-align: left; }
`;

/** The report in one language: the method, the chart, the links and every strategy against its bound. */
function htmlBody(r: SweepReport, lang: Lang): string {
  const w = SWEEP_WORDS[lang];
  const lines: Line[] = r.rows.map((row, i) => ({
    name: row.strategy,
    color: COLORS[i % COLORS.length] ?? '#888',
    values: row.cells.map((c) => c.goodput.median),
  }));
  const chart = renderLineChart({ title: w.html.chart, unit: w.html.soldPerSecond, xLabel: w.html.xLabel, xs: r.rtts, lines, at: w.html.at });
  const table = (header: readonly string[], rows: string[][]) =>
    `<table><thead><tr>${header.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>\n${rows.map((row) => `<tr>${row.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`).join('\n')}\n</tbody></table>`;
  return `<h1>${esc(w.html.title)}</h1>
<p class="meta">${esc(methodText(r, lang))}</p>
${chart}
<h2>${esc(w.html.links)}</h2>
${table(linkHeader(r, lang), linkRows(r, lang))}
<h2>${esc(w.html.eachStrategy)}</h2>
${table(
  sweepHeader(r, lang),
  r.rows.map((row) => sweepRow(row, lang)),
)}
<ul class="notes">${[...readings(r, lang), ...notes(r, lang), ...w.definitions].map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`;
}

export function renderSweepHtml(r: SweepReport): string {
  return bilingualPage({ en: SWEEP_WORDS.en.html.pageTitle(r.stamp), zh: SWEEP_WORDS.zh.html.pageTitle(r.stamp) }, CSS, (lang) => htmlBody(r, lang));
}
