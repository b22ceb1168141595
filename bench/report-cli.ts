// What `npm run bench` and `npm run lab` share: run the comparison, write the files, print the table.
import { Progress } from '../src/cli/progress.js';
import { runBench } from './bench.js';
import type { BenchOptions } from './options.js';
import { writeReport, writeReportFiles, type WrittenFiles } from './output.js';
import { runRamp } from './ramp.js';
import { renderRampHtml, renderRampMarkdown } from './ramp-report.js';
import type { BenchReport } from './report.js';
import { renderMarkdown } from './table.js';
import { BENCH_WORDS } from './words.js';
import type { BenchTarget } from './target.js';

export async function benchAndPrint(opts: BenchOptions, target: BenchTarget, progress = new Progress(), title = 'bench'): Promise<{ report: BenchReport; files: WrittenFiles }> {
  // progress on stderr, so `npm run bench > table.md` captures only the table
  const report = await runBench(opts, target, progress);
  progress.summary(title);
  const files = writeReport(report, opts.out, opts.lang);
  console.log(renderMarkdown(report, opts.lang));
  console.log(BENCH_WORDS[opts.lang].files(files.json, files.md, files.html));
  return { report, files };
}


/** The ramp (--ramp): run it, write ramp-<stamp>.{json,md,html}, print its table. */
export async function rampAndPrint(opts: BenchOptions, target: BenchTarget, progress = new Progress(), title = 'ramp'): Promise<WrittenFiles> {
  const report = await runRamp(opts, target, progress);
  progress.summary(title);
  const md = renderRampMarkdown(report);
  const files = writeReportFiles(opts.out, report.stamp, { data: report, md, html: renderRampHtml(report) });
  console.log(md);
  console.log(`results: ${files.json}\n         ${files.md}\nreport:  ${files.html}`);
  return files;
}

/** The comparison, or the ramp with --ramp; returns the files written. */
export async function runAndPrint(opts: BenchOptions, target: BenchTarget, progress = new Progress(), title = 'bench'): Promise<WrittenFiles> {
  return opts.ramp ? rampAndPrint(opts, target, progress, title) : (await benchAndPrint(opts, target, progress, title)).files;
}
