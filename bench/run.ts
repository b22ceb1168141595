// `npm run bench`: the oversell comparison against a running cluster. The table goes to stdout,
// progress to stderr, files to bench/results/.
import { runBench } from './bench.js';
import { parseBenchArgs, USAGE } from './options.js';
import { writeReport } from './output.js';
import { renderMarkdown } from './table.js';
import { resolveTarget } from './target.js';

async function main(): Promise<number> {
  let opts;
  try {
    opts = parseBenchArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const report = await runBench(opts, resolveTarget(opts), (line) => console.error(line));
  const files = writeReport(report, opts.out);
  console.log(renderMarkdown(report));
  console.log(`results: ${files.json}\n         ${files.md}\nreport:  ${files.html}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`bench failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
