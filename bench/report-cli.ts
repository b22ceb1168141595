// What `npm run bench` and `npm run lab` share: run the comparison, write the files, print the table.
import { runBench } from './bench.js';
import type { BenchOptions } from './options.js';
import { writeReport, type WrittenFiles } from './output.js';
import type { BenchReport } from './report.js';
import { renderMarkdown } from './table.js';
import type { BenchTarget } from './target.js';

export async function benchAndPrint(opts: BenchOptions, target: BenchTarget): Promise<{ report: BenchReport; files: WrittenFiles }> {
  // progress on stderr, so `npm run bench > table.md` captures only the table
  const report = await runBench(opts, target, (line) => console.error(line));
  const files = writeReport(report, opts.out);
  console.log(renderMarkdown(report));
  console.log(`results: ${files.json}\n         ${files.md}\nreport:  ${files.html}`);
  return { report, files };
}

/** Runs a CLI's main and exits with its code; a thrown error is printed as one line, exit 1. */
export function exitWith(name: string, main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`${name} failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
