// The round-trip sweep's report: the links' own round trips, then per strategy k, the bound
// 1/(k·r), the measured goodput and its fraction of the bound at each r; as markdown and as HTML
// with a chart of goodput against the round trip.
import { renderLineChart, type Line } from './line-chart.js';
import { microseconds } from './link-time.js';
import { int, oversoldText, spreadText } from './format.js';
import { verdictOf } from './report.js';
import { reportCss } from './report-style.js';
import { escapeXml as esc } from './svg.js';
import type { SweepCell, SweepReport, SweepRow } from './sweep.js';
import { markdownTable } from './table.js';

const rttLabel = (ms: number) => `${ms} ms`;

function linkRows(r: SweepReport): string[][] {
  return [
    ['directly (no forwarder)', microseconds(r.direct.mysql), microseconds(r.direct.redis)],
    ...r.linkTimes.map((t) => [`through the forwarders at ${rttLabel(t.rttMs)}`, microseconds(t.mysql), microseconds(t.redis)]),
  ];
}

const LINK_HEADER = ['one request, median of 20 (min–max)', 'MySQL SELECT 1', 'Redis PING'];

function cellText(c: SweepCell, expected: SweepRow['expected']): string[] {
  const verdict = verdictOf(c.race);
  const race = verdict === 'exact' ? 'exact' : `${oversoldText(c.race)}${verdict === 'oversold' && expected === 'oversells' ? ' (expected: a lock per instance)' : ''}`;
  return [spreadText(c.goodput), c.bound === null ? '–' : int(c.bound), c.fraction === null ? '–' : c.fraction.toFixed(2), race];
}

function sweepHeader(r: SweepReport): string[] {
  return ['strategy', 'k', ...r.rtts.flatMap((ms) => [`sold/s at ${rttLabel(ms)}`, `bound at ${rttLabel(ms)}`, 'fraction', 'race'])];
}

function sweepRow(row: SweepRow): string[] {
  return [row.strategy, row.k.toFixed(1), ...row.cells.flatMap((c) => cellText(c, row.expected))];
}

/** What limits the strategies that are far below their bound, or above it: said in words. */
function readings(r: SweepReport): string[] {
  const out: string[] = [];
  for (const row of r.rows) {
    for (const c of row.cells) {
      if (c.fraction === null) continue;
      if (c.fraction > 1) out.push(`${row.strategy} at ${rttLabel(c.rttMs)} sells ${c.fraction.toFixed(1)}× its bound: fewer round trips than k sit between one sale and the next: a row lock held inside the server (sql-update), a lock per instance (mutex), or a hold passed from request to request inside an instance with no round trip (the process line of redlock and zk-watch), so 1/(k·r) does not limit it.`);
      else if (c.fraction < 0.5) out.push(belowHalf(row, c));
    }
  }
  return out;
}

/** A strategy under half its bound: whether its goodput moved with the round trip at all, as measured. */
function belowHalf(row: SweepRow, c: SweepCell): string {
  const head = `${row.strategy} at ${rttLabel(c.rttMs)} reaches ${c.fraction?.toFixed(2)} of its bound`;
  const quickest = row.cells[0];
  if (!quickest || quickest === c || quickest.goodput.median <= 0) return `${head}: something besides the round trips limits it.`;
  const kept = c.goodput.median / quickest.goodput.median;
  return kept >= 0.7
    ? `${head}, and sells ${int(c.goodput.median)}/s against ${int(quickest.goodput.median)}/s at ${rttLabel(quickest.rttMs)} (${kept.toFixed(2)} of it): the round trip is not what limits it; its waiters' retry interval (retryMs) or the CPU is.`
    : `${head}, and ${kept.toFixed(2)} of its goodput at ${rttLabel(quickest.rttMs)}: the round trips cost it more than k counts (waits and retries under contention).`;
}

const DEFINITIONS = [
  'k: the round trips in the serial path of one sale, the messages the servers counted per sale with one request at a time (Redis commands by MONITOR, MySQL statements, ZooKeeper requests), the RedLock masters counted once as they are asked in parallel. Commands a client pipelines are counted apart, so k can be above the true count.',
  'bound: 1/(k·r) sales per second, for a lock that serializes the cluster: no sale can start its serial path before the previous one ends. It does not limit a strategy that holds nothing across a round trip (sql-update: one conditional UPDATE, its row lock held inside MySQL), a lock per instance (mutex, three instances at once), or a lock whose hold passes between requests inside an instance (the process line: k is counted one request at a time, when every sale takes the lock afresh); their fractions are for comparison only.',
  'fraction: the median goodput divided by the bound.',
  'race: one oversell race through nginx at that round trip (exact: every sale left the store once, nothing oversold).',
];

function methodText(r: SweepReport): string {
  return `${r.rows.length} strategies through nginx at round trips of ${r.rtts.map(rttLabel).join(', ')}; ${r.rounds} rounds of ${r.windowSeconds} s windows at ${r.connections} connections, every round trip and every strategy once per round in a rotated order; median (min–max) of the rounds. ${r.date}, ${r.machine.nproc} cores (${r.machine.cpu}), Node ${r.machine.node}, ${r.seconds.toFixed(0)} s.`;
}

/** The report's markdown after its heading: `intro` (how the run was made), the links' own round trips, every strategy against its bound, what limits those far from it, and the definitions. */
function sweepBody(r: SweepReport, intro: string): string {
  return [
    intro,
    '',
    markdownTable(LINK_HEADER, linkRows(r)),
    '',
    markdownTable(sweepHeader(r), r.rows.map(sweepRow)),
    '',
    ...[...readings(r), ...r.notes].map((t) => `- ${t}`),
    '',
    ...DEFINITIONS.map((d) => `- ${d}`),
  ].join('\n');
}

/** docs/results.md's block: the body, its method said as from `file`. */
export function sweepDocBlock(r: SweepReport, file: string): string {
  return sweepBody(r, `From \`${file}\`: ${methodText(r)}`);
}

/** The README's block: at the sweep's longest round trip, each strategy's goodput beside its loopback figure, k, the bound and the fraction. */
export function sweepSummaryBlock(r: SweepReport, file: string, resultsLink: string): string {
  const far = r.rtts.length - 1;
  const at = r.rtts[far] as number;
  const header = ['strategy', 'k', `sold/s at ${rttLabel(r.rtts[0] as number)}`, `sold/s at ${rttLabel(at)}`, `bound at ${rttLabel(at)}`, 'fraction of the bound', 'races'];
  const rows = r.rows.map((row) => {
    const near = row.cells[0];
    const c = row.cells[far];
    const each = row.cells.map((x) => `${rttLabel(x.rttMs)}: ${verdictOf(x.race) === 'exact' ? 'exact' : oversoldText(x.race)}`).join('; ');
    const races = row.cells.every((x) => verdictOf(x.race) === 'exact') ? 'exact at each' : row.expected === 'oversells' ? `${each} (expected: a lock per instance)` : each;
    return [row.strategy, row.k.toFixed(1), near ? int(near.goodput.median) : '–', c ? int(c.goodput.median) : '–', c?.bound == null ? '–' : int(c.bound), c?.fraction == null ? '–' : c.fraction.toFixed(2), races];
  });
  return [markdownTable(header, rows), '', `From \`${file}\` (${r.date.slice(0, 10)}, ${r.machine.nproc} cores, medians of ${r.rounds} rounds; the links' own round trips and the ranges are in [${resultsLink.split('#')[0]}](${resultsLink})).`].join('\n');
}

export function renderSweepMarkdown(r: SweepReport): string {
  return `## stocklab round-trip sweep ${r.stamp}\n\n${sweepBody(r, methodText(r))}\n`;
}

const COLORS = ['#4c78a8', '#f58518', '#54a24b', '#e45756', '#72b7b2', '#b279a2', '#ff9da6', '#9d755d'];

export function renderSweepHtml(r: SweepReport): string {
  const lines: Line[] = r.rows.map((row, i) => ({ name: row.strategy, color: COLORS[i % COLORS.length] ?? '#888', values: row.cells.map((c) => c.goodput.median) }));
  const chart = renderLineChart({ title: 'Goodput against the round trip: units sold per second', unit: 'sold/s', xLabel: 'round trip (ms)', xs: r.rtts, lines });
  const table = (header: string[], rows: string[][]) =>
    `<table><thead><tr>${header.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>\n${rows.map((row) => `<tr>${row.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`).join('\n')}\n</tbody></table>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>stocklab round-trip sweep ${esc(r.stamp)}</title>
<style>${reportCss(1200)}
table td:first-child, table th:first-child { text-align: left; }
</style></head>
<body>
<h1>stocklab: goodput against the round trip</h1>
<p class="meta">${esc(methodText(r))}</p>
${chart}
<h2>The links</h2>
${table(LINK_HEADER, linkRows(r))}
<h2>Each strategy against its bound</h2>
${table(sweepHeader(r), r.rows.map(sweepRow))}
<ul class="notes">${[...readings(r), ...r.notes, ...DEFINITIONS].map((n) => `<li>${esc(n)}</li>`).join('')}</ul>
</body></html>
`;
}
