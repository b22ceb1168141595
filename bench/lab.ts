// `npm run lab`: from nothing to the comparison. Brings the native cluster up (installing the
// Debian packages it needs when run as root), runs the full bench on it, prints the table and the
// report's path. The cluster is left running so it can be benched again or poked at by hand;
// `--stop` takes it down at the end instead.
import { clusterDown, clusterUp } from '../src/cluster/lifecycle.js';
import { aptInstall } from '../src/cluster/packages.js';
import { LAB_FLAGS, parseBenchArgs, USAGE, type BenchOptions } from './options.js';
import { benchAndPrint, exitWith } from './report-cli.js';
import { resolveTarget } from './target.js';
import { wrkPath } from './wrk.js';

exitWith('lab', async () => {
  const args = process.argv.slice(2);
  const labFlags: readonly string[] = LAB_FLAGS.map((f) => `--${f}`);
  const stop = args.includes('--stop');
  let opts: BenchOptions;
  try {
    opts = parseBenchArgs(args.filter((a) => !labFlags.includes(a)));
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}\n  --stop               (lab only) stop the cluster when done`);
    return 2;
  }
  if (opts.target) {
    console.error('lab runs on the native cluster it starts; to bench another cluster use: npm run bench -- --target URL');
    return 2;
  }
  const t0 = Date.now();
  // Progress goes to stderr with the bench's, so stdout stays the table.
  const say = (line: string) => console.error(line);
  say('lab: bringing the native cluster up (as npm run cluster -- up does) …');
  const info = await clusterUp(say);
  // wrk is the reference the bench's own load generator is compared with; the bench runs without it.
  if (!wrkPath()) {
    try {
      aptInstall(['wrk'], say);
    } catch (err) {
      console.error(`lab: ${(err as Error).message}; the ceiling will have no wrk reference`);
    }
  }
  const { files } = await benchAndPrint(opts, resolveTarget(opts, process.env, info));
  const minutes = ((Date.now() - t0) / 60_000).toFixed(1);
  if (stop) {
    await clusterDown(say);
    console.log(`\nlab done in ${minutes} min; the cluster is stopped. Open the report: ${files.html}`);
  } else {
    console.log(`\nlab done in ${minutes} min. Open the report: ${files.html}`);
    console.log(`The cluster is STILL RUNNING (nginx ${info.nginx}, instances ${info.instances.join(' ')}), so you can`);
    console.log('re-run `npm run bench` or curl it. Stop it with: npm run cluster -- down');
  }
  return 0;
});
