// `npm run lab`: from nothing to the comparison. Brings the native cluster up (installing the
// Debian packages it needs when run as root), runs the full bench on it, prints the table and the
// report's path. The cluster is left running so it can be benched again or poked at by hand;
// `--stop` takes it down at the end instead.
import { BENCH_WORDS } from '../report/bench/words.js';
import { loadClusterConfig } from '../src/cluster/layout.js';
import { clusterDown, clusterUp } from '../src/cluster/lifecycle.js';
import { aptInstall } from '../src/cluster/packages.js';
import { parseFlags, runCli } from '../src/cli/args.js';
import { Progress } from '../src/cli/progress.js';
import { printUrls } from '../src/cluster/lifecycle.js';
import { BENCH_FLAGS, benchOptionsOf, LAB_FLAGS, LAB_USAGE } from './options.js';
import { runAndPrint } from './report-cli.js';
import { resolveTarget } from './target.js';
import { wrkPath } from './wrk.js';

/** A cluster started from nothing on this machine's size (one that is already up takes a second). */
const CLUSTER_UP_SECONDS = 30;

runCli('lab', LAB_USAGE, async () => {
  const { values } = parseFlags(process.argv.slice(2), { ...BENCH_FLAGS, ...LAB_FLAGS });
  const opts = benchOptionsOf(values);
  const stop = values.stop ?? false;
  if (opts.target) {
    console.error('lab runs on the native cluster it starts; to bench another cluster use: npm run bench -- --target URL');
    return 2;
  }
  const t0 = Date.now();
  // Progress goes to stderr with the bench's, so stdout stays the table. The bench's steps join the
  // plan once the cluster is up and its catalog read.
  const progress = new Progress();
  const say = progress.line;
  progress.add([
    { key: 'cluster', phase: 'cluster', seconds: CLUSTER_UP_SECONDS, ownPace: true },
    ...(wrkPath() ? [] : [{ key: 'wrk', phase: 'install', seconds: 20, ownPace: true }]),
  ]);
  say('lab: bringing the native cluster up (as npm run cluster -- up does) …');
  // The sweep (--rtt) wants the cluster with its forwarders: brought up so at once, not restarted later.
  const asked = opts.rtts ? { ...loadClusterConfig(), rttMs: Math.max(...opts.rtts) } : loadClusterConfig();
  const info = await progress.step('cluster', 'cluster up', () => clusterUp(say, asked));
  printUrls(info, say);
  // wrk is the reference the bench's own load generator is compared with; the bench runs without it.
  if (!wrkPath()) {
    await progress.step('wrk', 'apt-get install wrk', async () => {
      try {
        aptInstall(['wrk'], say);
      } catch (err) {
        say(`lab: ${(err as Error).message}; the ceiling will have no wrk reference`);
      }
    });
  }
  const files = await runAndPrint(opts, resolveTarget(opts, process.env, info), progress, 'lab');
  const minutes = ((Date.now() - t0) / 60_000).toFixed(1);
  if (stop) {
    await clusterDown(say);
    console.log(BENCH_WORDS[opts.lang].labDone(minutes, true, files.html));
  } else {
    console.log(BENCH_WORDS[opts.lang].labDone(minutes, false, files.html));
    say(`The cluster is STILL RUNNING (nginx ${info.nginx}, instances ${info.instances.join(' ')}), so you can`);
    say('re-run `npm run bench` or curl it. Stop it with: npm run cluster -- down');
  }
  return 0;
});
