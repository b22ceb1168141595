// `npx tsx bench/window-span.ts`: is a shorter window the same measurement? Each throughput window
// runs the longest span's load once and keeps when each 200 came, so every span (a warm-up, then a
// measured length) is cut from the same window: the ratios compare spans measured together, never
// two runs minutes apart. Rounds interleave the lab's strategies as the bench does. Needs a running
// native cluster (npm run cluster -- up); it resets the stock. Writes docs/runs/window-span-<stamp>.json.
import fs from 'node:fs';
import path from 'node:path';
import { HELP_FLAG, parseFlags, runCli } from '../src/cli/args.js';
import { fetchCatalog, selectStrategies } from '../src/load/catalog.js';
import { fireLoad, stopLoad } from '../src/load/fire.js';
import { checkUrl, resetStock } from '../src/load/race.js';
import { REPO_ROOT } from '../src/paths.js';
import { spreadOf, type Spread } from '../report/bench/stats.js';
import { goodputIn, summarizeSpans, type WindowSpan, type WindowSpanCell, type WindowSpanReport } from '../report/bench/window-span.js';
import { rotated, stampOf } from './bench.js';
import { WINDOW_STOCK } from './measure.js';
import { COURSE_LINE, count } from './options.js';
import { recordedCluster } from './target.js';

/** The first is the reference the others are divided by: the lab's window before issue 47's studies. */
const SPANS: WindowSpan[] = [
  { label: '0.5+1.5', warmup: 0.5, seconds: 1.5 },
  { label: '0.4+1.0', warmup: 0.4, seconds: 1.0 },
  { label: '0.3+1.0', warmup: 0.3, seconds: 1.0 },
  { label: '0.3+0.7', warmup: 0.3, seconds: 0.7 },
  { label: '0.3+0.6', warmup: 0.3, seconds: 0.6 },
  { label: '0.3+0.5', warmup: 0.3, seconds: 0.5 },
  { label: '0.3+0.4', warmup: 0.3, seconds: 0.4 },
];

const USAGE = `usage: npx tsx bench/window-span.ts [--rounds N] [--out DIR]
  --rounds N   rounds over the lab's rows, interleaved (default 3)
  --out DIR    where window-span-<stamp>.json goes (default docs/runs)
  --help       this text
Needs a running native cluster (npm run cluster -- up); it resets the stock.`;

runCli('window-span', USAGE, async () => {
  const { values } = parseFlags(process.argv.slice(2), { rounds: { type: 'string' }, out: { type: 'string' }, ...HELP_FLAG });
  const rounds = count('rounds', values.rounds, 3, 1) ?? 3;
  const out = values.out ?? 'docs/runs';
  const info = recordedCluster();
  if (!info) throw new Error('no native cluster recorded: start one with `npm run cluster -- up`');
  const bases: [string, string][] = [
    ['one', info.instances[0] ?? info.nginx],
    ['three', info.nginx],
  ];
  const strategies = selectStrategies(await fetchCatalog(info.nginx), COURSE_LINE);
  const cells = strategies.flatMap((s) => bases.map(([topology, base]) => ({ s, base, key: `${s.name}/${topology}` })));
  const longest = Math.max(...SPANS.map((s) => s.warmup + s.seconds));
  const byCell = new Map<string, WindowSpanCell>(cells.map((c) => [c.key, { cell: c.key, goodput: {} }]));
  for (let round = 0; round < rounds; round++) {
    for (const c of rotated(cells, round)) {
      await resetStock(c.base, WINDOW_STOCK);
      const r = await fireLoad({
        url: checkUrl(c.base, c.s.name, c.s.stores[0], { workMs: 0 }),
        connections: 100,
        window: { warmupSeconds: 0, seconds: longest },
        maxSeconds: longest + 20,
        timeoutSeconds: 30,
        classify: false,
        keepOkTimes: true,
      });
      const row = byCell.get(c.key)!;
      for (const s of SPANS) (row.goodput[s.label] ??= []).push(goodputIn(r.okTimes ?? [], s));
      console.error(`[round ${round + 1}/${rounds}] ${c.key}: ${SPANS.map((s) => `${s.label} ${row.goodput[s.label]!.at(-1)!.toFixed(0)}/s`).join(', ')}`);
    }
  }
  stopLoad();
  const report: WindowSpanReport = {
    stamp: stampOf(new Date()),
    rounds,
    connections: 100,
    spans: SPANS,
    cells: [...byCell.values()],
    ...summarizeSpans(SPANS, [...byCell.values()]),
  };
  const fmt = (s: Spread) => `${s.median.toFixed(0)} (${s.min.toFixed(0)}–${s.max.toFixed(0)})`;
  console.log(`Goodput (200s a second) per span of the same windows, median of ${rounds} rounds (min–max):\n`);
  console.log(`| cell | ${SPANS.map((s) => s.label).join(' | ')} |`);
  console.log(`|---|${SPANS.map(() => '---').join('|')}|`);
  for (const c of report.cells) console.log(`| ${c.cell} | ${SPANS.map((s) => fmt(spreadOf(c.goodput[s.label] ?? []))).join(' | ')} |`);
  console.log('');
  for (const s of SPANS.slice(1))
    console.log(
      `${s.label}: ÷ ${SPANS[0]!.label} a median ${report.ratio[s.label]!.median.toFixed(3)} over the cells (${report.ratio[s.label]!.min.toFixed(2)}–${report.ratio[s.label]!.max.toFixed(2)}); rounds' range a median ${(100 * report.relativeRange[s.label]!).toFixed(0)} % of the median (${SPANS[0]!.label}: ${(100 * report.relativeRange[SPANS[0]!.label]!).toFixed(0)} %)`,
    );
  const file = path.resolve(REPO_ROOT, out, `window-span-${report.stamp}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(report, null, 1)}\n`);
  console.log(`\n${path.relative(process.cwd(), file)}`);
  return 0;
});
