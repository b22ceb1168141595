// `npm run bench`: the oversell comparison against a running cluster (or, with --ramp, the overload ramp). The table goes to stdout,
// progress to stderr, files to bench/results/.
import { runCli } from '../src/cli/args.js';
import { parseBenchArgs, USAGE } from './options.js';
import { runAndPrint } from './report-cli.js';
import { recordedCluster, resolveTarget } from './target.js';

runCli('bench', USAGE, async () => {
  const opts = parseBenchArgs(process.argv.slice(2));
  await runAndPrint(opts, resolveTarget(opts, process.env, recordedCluster()));
  return 0;
});
