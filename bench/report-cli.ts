// What `npm run bench` and `npm run lab` share: run the comparison, write the files, print the table.
import { Progress } from '../src/cli/progress.js';
import { runBench } from './bench.js';
import type { BenchOptions } from './options.js';
import { writeReport, type WrittenFiles } from './output.js';
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

