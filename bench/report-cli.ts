// What `npm run bench` and `npm run lab` share: run the comparison, write the files, print the table.
import { Progress } from '../src/cli/progress.js';
import { loadClusterConfig } from '../src/cluster/layout.js';
import { clusterRetime, clusterUp } from '../src/cluster/lifecycle.js';
import { runBench } from './bench.js';
import type { BenchOptions } from './options.js';
import { writeReportFiles, type WrittenFiles } from '../report/output.js';
import { renderHtml } from '../report/bench/html.js';
import { runRamp } from './ramp.js';
import { renderRampHtml, renderRampMarkdown } from '../report/bench/ramp-report.js';
import type { BenchReport } from '../report/bench/report.js';
import type { Lang } from '../src/lang.js';
import { renderMarkdown } from '../report/bench/table.js';
import { windowTimeLines } from '../report/bench/window-time.js';
import { BENCH_WORDS } from '../report/bench/words.js';
import { runSweep } from './sweep.js';
import { renderSweepHtml, renderSweepMarkdown } from '../report/bench/sweep-report.js';
import { resolveTarget, type BenchTarget } from './target.js';

/** Writes <dir>/<stamp>.{json,md,html} (--out, bench/results by default): the .md in `lang`; the .html carries both languages. */
export function writeReport(report: BenchReport, dir: string, lang: Lang = 'en'): WrittenFiles {
  return writeReportFiles(dir, report.stamp, { data: report, md: renderMarkdown(report, lang), html: renderHtml(report) });
}

export async function benchAndPrint(
  opts: BenchOptions,
  target: BenchTarget,
  progress = new Progress(),
  title = 'bench',
): Promise<{ report: BenchReport; files: WrittenFiles }> {
  // progress on stderr, so `npm run bench > table.md` captures only the table
  const report = { ...(await runBench(opts, target, progress)) };
  progress.summary(title);
  report.phases = progress.phases();
  // the windows' own parts, under their phase's line (stderr, as the summary)
  if (report.windowTime) for (const l of windowTimeLines(report.windowTime)) console.error(l);
  const files = writeReport(report, opts.out, opts.lang);
  console.log(renderMarkdown(report, opts.lang));
  console.log(BENCH_WORDS[opts.lang].files(files.json, files.md, files.html));
  return { report, files };
}

/** The ramp (--ramp): run it, write ramp-<stamp>.{json,md,html}, print its table. */
export async function rampAndPrint(opts: BenchOptions, target: BenchTarget, progress = new Progress(), title = 'ramp'): Promise<WrittenFiles> {
  const report = await runRamp(opts, target, progress);
  progress.summary(title);
  const md = renderRampMarkdown(report, opts.lang);
  const files = writeReportFiles(opts.out, report.stamp, { data: report, md, html: renderRampHtml(report) });
  console.log(md);
  console.log(BENCH_WORDS[opts.lang].files(files.json, files.md, files.html));
  return files;
}

/**
 * The round-trip sweep (--rtt): the native cluster brought up with its forwarders (or kept, when it
 * has them), retimed from one round trip to the next; writes rtt-<stamp>.{json,md,html}.
 */
export async function sweepAndPrint(opts: BenchOptions, rtts: number[], progress = new Progress(), title = 'sweep'): Promise<WrittenFiles> {
  const say = progress.line;
  const rttMs = Math.max(...rtts);
  say(`sweep: the native cluster with its links delayed (as npm run cluster -- up --rtt ${rttMs} does) …`);
  const info = await clusterUp(say, { ...loadClusterConfig(), rttMs });
  const report = await runSweep(opts, rtts, resolveTarget(opts, process.env, info), { info, setRtt: (ms) => clusterRetime(() => undefined, ms) }, progress);
  progress.summary(title);
  const md = renderSweepMarkdown(report, opts.lang);
  const files = writeReportFiles(opts.out, `rtt-${report.stamp}`, { data: report, md, html: renderSweepHtml(report) });
  console.log(md);
  console.log(BENCH_WORDS[opts.lang].files(files.json, files.md, files.html));
  say(
    `The cluster is left at rtt ${rtts.at(-1)} ms (npm run cluster -- rtt MS changes it; npm run cluster -- up without --rtt brings it back without forwarders).`,
  );
  return files;
}

/** The comparison, the ramp with --ramp, or the round-trip sweep with --rtt; returns the files written. */
export async function runAndPrint(opts: BenchOptions, target: BenchTarget, progress = new Progress(), title = 'bench'): Promise<WrittenFiles> {
  if (opts.rtts) return sweepAndPrint(opts, opts.rtts, progress, title);
  return opts.ramp ? rampAndPrint(opts, target, progress, title) : (await benchAndPrint(opts, target, progress, title)).files;
}
