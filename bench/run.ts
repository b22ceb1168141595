// `npm run bench`: the oversell comparison against a running cluster. The table goes to stdout,
// progress to stderr, files to bench/results/.
import { parseBenchArgs, USAGE, type BenchOptions } from './options.js';
import { benchAndPrint, exitWith } from './report-cli.js';
import { recordedCluster, resolveTarget } from './target.js';

exitWith('bench', async () => {
  let opts: BenchOptions;
  try {
    opts = parseBenchArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  await benchAndPrint(opts, resolveTarget(opts, process.env, recordedCluster()));
  return 0;
});
