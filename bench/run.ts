// `npm run bench`: the oversell comparison against a running cluster (or, with --ramp, the overload ramp; with --rtt, the round-trip sweep). The table goes to stdout,
// progress to stderr, files to bench/results/.
import { runCli } from '../src/cli/args.js';
import { parseBenchArgs, USAGE } from './options.js';
import { runAndPrint, sweepAndPrint } from './report-cli.js';
import { recordedCluster, resolveTarget } from './target.js';

runCli('bench', USAGE, async () => {
  const opts = parseBenchArgs(process.argv.slice(2));
  // The sweep brings up (or keeps) the cluster whose links it delays, and finds its target there.
  if (opts.rtts) await sweepAndPrint(opts, opts.rtts);
  else await runAndPrint(opts, resolveTarget(opts, process.env, recordedCluster()));
  return 0;
});
