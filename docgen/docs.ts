// What `npm run docs` writes (cli.ts runs it): the generated blocks of README.md and docs/*.md,
// of their Chinese twins (README.zh-CN.md, docs/zh-CN/*.md) from the same figures, and
// docs/results.svg, from one bench run's JSON and optionally one fault run's, so every figure the
// docs quote comes from a run and says which.
import { HELP_FLAG } from '../src/cli/args.js';
import fs from 'node:fs';
import path from 'node:path';
import { rowCells } from '../faults/report/cells.js';
import { faultHeader, methodText as faultMethodText } from '../faults/report/markdown.js';
import { FAULT_WORDS } from '../faults/report/words.js';
import type { FaultReport } from '../faults/report/report.js';
import type { FaultRow } from '../faults/row.js';
import { SCENARIOS } from '../faults/scenarios/index.js';
import { faultsByLock } from './faults.js';
import { zhCell } from '../report/zh-cells.js';
import { zhFaultCells } from './zh-faults.js';
import { familySummaries, linedPairs } from './summary.js';
import { ceilingCells, ceilingHeader, runCells, runHeader, runTableNotes } from '../report/bench/format.js';
import { chartRows, goodputOf, goodputRange } from '../report/bench/html.js';
import { ceilingOf, TOPOLOGIES, TOPOLOGY_LABEL, verdictOf, type BenchReport } from '../report/bench/report.js';
import { BENCH_DEFAULTS } from '../report/bench/run-options.js';
import { CHART_CSS } from '../report/report-style.js';
import { renderBarChart, standaloneSvg } from '../report/svg.js';
import { definitions, methodText, runsTable } from '../report/bench/table.js';
import { markdownTable } from '../report/table.js';
import { BENCH_WORDS } from '../report/bench/words.js';
import type { Lang } from '../src/lang.js';

/** Every flag `npm run docs` accepts. */
export const DOCS_FLAGS = {
  command: { type: 'string' },
  lease: { type: 'string' },
  chaos: { type: 'string', multiple: true },
  soak: { type: 'string' },
  ramp: { type: 'string' },
  rtt: { type: 'string' },
  'rtt-line': { type: 'string' },
  'rtt-lease': { type: 'string' },
  incidents: { type: 'string' },
  'lab-before': { type: 'string' },
  'lab-after': { type: 'string' },
  'window-span': { type: 'string' },
  ...HELP_FLAG,
} as const;

/** The blocks `npm run docs` writes; a doc may hold any of them. */
export const GENERATED_BLOCKS = [
  'lab-run',
  'summary',
  'ceiling',
  'results',
  'lease-run',
  'lease-results',
  'faults-run',
  'faults-by-lock',
  'faults-single',
  'faults-replicated',
  'faults-hosts',
  'reliability',
  'chaos-runs',
  'soak-run',
  'ramp',
  'ramp-summary',
  'rtt-results',
  'rtt-summary',
  'rtt-line',
  'rtt-lease',
  'incidents',
  'lab-speed',
  'window-span',
] as const;

export const DOCS_USAGE = `usage: npm run docs -- <bench results .json> [<faults results .json>] [options]
  --command "…"   the command that made the bench run (default: npm run bench with the options it records)
  --lease FILE     a bench run with work longer than the lease (--workMs > --ttlMs), for its own table
  --chaos FILE     a chaos run (npm run faults -- --chaos; .json or .json.gz), for the reliability tables; repeatable
  --soak FILE      a soak run (npm run soak), for the reliability tables
  --ramp FILE      an overload ramp (npm run bench -- --ramp), for its table
  --rtt FILE       a round-trip sweep (npm run bench -- --rtt 0,2), for its tables
  --rtt-line FILE  a round-trip sweep of locks with and without their process line, for docs/bench.md
  --rtt-lease FILE a round-trip sweep with a short --ttlMs (RedLock's validity), for docs/bench.md
  --incidents FILE the incident gallery (npm run faults -- --scenario incidents), for docs/incidents.md
  --lab-before FILE --lab-after FILE   two runs of npm run lab (with --separate-races, then without),
                   side by side in docs/bench.md
  --window-span FILE   the window-span study (npx tsx bench/window-span.ts), for docs/bench.md`;

export const CHART_FILE = 'docs/results.svg';

/** The Chinese front door: the same generated blocks as README.md, in Chinese. */
export const README_ZH = 'README.zh-CN.md';

/** The Chinese twins of the pages of docs/: `docs/zh-CN/<the same file name>`. */
export const ZH_DOCS = 'docs/zh-CN';

/** The pages of one folder of the docs, by name. */
function pagesIn(root: string, dir: string): string[] {
  const abs = path.join(root, dir);
  return fs.existsSync(abs)
    ? fs
        .readdirSync(abs)
        .filter((f) => f.endsWith('.md'))
        .sort()
        .map((f) => `${dir}/${f}`)
    : [];
}

/** The docs whose generated blocks are rewritten: the READMEs, every page of docs/ and its twin. */
export function docFiles(root: string): string[] {
  const zh = fs.existsSync(path.join(root, README_ZH)) ? [README_ZH] : [];
  return ['README.md', ...zh, ...pagesIn(root, 'docs'), ...pagesIn(root, ZH_DOCS)];
}

/** The language a doc is written in: `*.zh-CN.md` and the pages of docs/zh-CN/ are Chinese, the rest English. */
export const docLang = (file: string): Lang => (file.endsWith('.zh-CN.md') || file.startsWith(`${ZH_DOCS}/`) ? 'zh' : 'en');

/** The bench's flags that differ from their defaults, so a run says how it was made. */
/** `subset`: the run benched only the strategies of its catalog (the reference joins any subset). */
export function benchCommand(report: BenchReport, subset = false): string {
  const d = BENCH_DEFAULTS;
  const o = report.options;
  const flags: string[] = [];
  const add = (flag: string, value: number | undefined, fallback: number | undefined) =>
    void (value !== fallback && value !== undefined && flags.push(`--${flag} ${value}`));
  add('rounds', o.rounds, d.rounds);
  add('warmup', o.warmupSeconds, d.warmupSeconds);
  add('window', o.windowSeconds, d.windowSeconds);
  add('connections', o.connections, d.connections);
  add('workMs', o.workMs, d.workMs);
  add('ttlMs', o.ttlMs, d.ttlMs);
  add('waitMs', o.waitMs, d.waitMs);
  add('maxSeconds', o.maxSeconds, d.maxSeconds);
  if (o.raceSeconds === undefined) flags.push(`--requests ${o.requests} --initial ${o.initial}`);
  // a run from before the sold-out windows (its record has no soldOutWindows) raced apart too
  else if (!o.soldOutWindows && o.rounds > 1) flags.push('--separate-races');
  const chosen = report.catalog.map((c) => c.name).filter((n) => n !== report.reference);
  if (subset) flags.unshift(`--strategies ${chosen.join(',')}`);
  else if (o.all) flags.unshift('--all');
  else add('raceSeconds', o.raceSeconds, d.raceSeconds);
  return ['npm run bench', ...(flags.length > 0 ? ['--', ...flags] : [])].join(' ');
}

export function faultsCommand(report: FaultReport): string {
  const o = report.options;
  const flags = [...(o.strategies ? [`--strategy ${o.strategies.join(',')}`] : [])];
  return ['npm run faults', ...(flags.length > 0 ? ['--', ...flags] : [])].join(' ');
}

const fileOf = (p: string) => path.relative(process.cwd(), path.resolve(p));

/** Which run a table comes from: the command, the date, the file, how it was measured and on what. */
function runLine(report: BenchReport, file: string, command: string, lang: Lang): string {
  return BENCH_WORDS[lang].docs.measured(command, fileOf(file), methodText(report, lang), report.machine.platform);
}

/** The README's summary table: one row per family, with the fault column when a fault run is given. */
export function summaryBlock(report: BenchReport, faults?: FaultReport, lang: Lang = 'en'): string {
  const w = BENCH_WORDS[lang].docs;
  const rows = familySummaries(report, faults?.rows, lang);
  const header = w.summaryHeader;
  const mutex = report.runs.find((r) => r.strategy === report.reference && r.topology === 'one');
  const table = faults
    ? markdownTable(
        [...header, w.whatBreaks(faultsCommand(faults))],
        rows.map((s) => [s.family, s.use, s.oversells, s.avoid, s.faults]),
      )
    : markdownTable(
        header,
        rows.map((s) => [s.family, s.use, s.oversells, s.avoid]),
      );
  const pairs = linedPairs(report, lang);
  return [table, '', w.reference(mutex ? String(Math.round(mutex.throughput.goodput.median)) : 'n/a'), ...(pairs ? ['', w.lined(pairs)] : [])].join('\n');
}

/** A bench table's rows in a doc's language: the Chinese twins say the English cells' words in Chinese. */
const localCells =
  (lang: Lang) =>
  (cells: string[]): string[] =>
    lang === 'zh' ? cells.map(zhCell) : cells;

/** The run table, how to read it and its ties (report/bench/table.ts's runsTable, its cells in the doc's language). */
function runsBlock(report: BenchReport, lang: Lang): string {
  if (lang === 'en') return runsTable(report, lang);
  return [
    markdownTable(
      runHeader(lang),
      report.runs.map((r) => localCells(lang)(runCells(r, lang))),
    ),
    '',
    ...definitions(lang).map((d) => `- ${d}`),
    ...runTableNotes(report.runs, lang).flatMap((n) => ['', n]),
  ].join('\n');
}

/** The blocks one bench run (and optionally one fault run) fills, in a doc's language. */
export function docBlocks(
  bench: { report: BenchReport; file: string; command: string },
  faults?: { report: FaultReport; file: string },
  lease?: { report: BenchReport; file: string },
  lang: Lang = 'en',
): Map<string, string> {
  const report = bench.report;
  const blocks = new Map([
    ['lab-run', runLine(report, bench.file, bench.command, lang)],
    ['summary', summaryBlock(report, faults?.report, lang)],
    [
      'ceiling',
      markdownTable(
        ceilingHeader(lang),
        report.ceilings.map((c) => localCells(lang)(ceilingCells(c, lang))),
      ),
    ],
    ['results', runsBlock(report, lang)],
  ]);
  if (lease) {
    const l = lease.report;
    blocks.set('lease-run', runLine(l, lease.file, benchCommand(l, true), lang));
    blocks.set(
      'lease-results',
      markdownTable(
        runHeader(lang),
        l.runs.map((r) => localCells(lang)(runCells(r, lang))),
      ),
    );
  }
  if (faults) {
    const f = faults.report;
    blocks.set(
      'faults-run',
      FAULT_WORDS[lang].measured(faultsCommand(f), fileOf(faults.file), faultMethodText(f, lang), f.rows.filter((r) => r.asExpected).length, f.rows.length),
    );
    blocks.set('faults-by-lock', faultsByLock(f.rows, lang));
    const on = (topologies: readonly string[]) => new Set(SCENARIOS.filter((s) => topologies.includes(s.topology ?? 'single')).map((s) => s.name));
    const replicated = on(['replicated']);
    // the hosts topology's scenarios: partitions, on a network namespace per server
    const hosts = on(['hosts', 'hosts,replicated']);
    const cells = (r: FaultRow) => (lang === 'zh' ? zhFaultCells(rowCells(r)) : rowCells(r));
    const table = (rows: FaultRow[]) => markdownTable(faultHeader(lang), rows.map(cells));
    blocks.set(
      'faults-single',
      [table(f.rows.filter((r) => !replicated.has(r.scenario) && !hosts.has(r.scenario))), '', ...FAULT_WORDS[lang].definitions.map((d) => `- ${d}`)].join(
        '\n',
      ),
    );
    blocks.set('faults-replicated', table(f.rows.filter((r) => replicated.has(r.scenario))));
    blocks.set('faults-hosts', table(f.rows.filter((r) => hosts.has(r.scenario))));
  }
  return blocks;
}

/** Goodput per strategy, one instance against three; ✗ marks a strategy that oversold in this run. */
export function resultsChart(report: BenchReport): string {
  const oversold = new Set(report.runs.filter((r) => verdictOf(r.worst) === 'oversold').map((r) => r.strategy));
  const rows = chartRows(report, goodputOf, goodputRange).map((row, i) => {
    const name = report.catalog[i]?.name ?? '';
    return { ...row, label: oversold.has(name) ? `${row.label} ✗ oversold` : row.label };
  });
  const refLines = TOPOLOGIES.flatMap((t) => {
    const c = ceilingOf(report, t);
    return c
      ? [
          {
            label: `GET /noop, ${TOPOLOGY_LABEL[t]}: ${Math.round(c.autocannon.median)}`,
            value: c.autocannon.median,
            color: t === 'one' ? '#4c78a8' : '#f58518',
          },
        ]
      : [];
  });
  const chart = renderBarChart({
    title: `Units sold per second, median of ${report.options.rounds} rounds (${report.date.slice(0, 10)}, ${report.machine.nproc} CPUs)`,
    unit: 'sold/s',
    series: TOPOLOGIES.map((t) => ({ name: TOPOLOGY_LABEL[t], color: t === 'one' ? '#4c78a8' : '#f58518' })),
    rows,
    refLines,
  });
  return standaloneSvg(chart, CHART_CSS);
}
