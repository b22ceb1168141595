// `npm run soak -- [--minutes N] [--strategies a,b] [--out DIR]`: a private lab cluster, the soak, its report; exit 0 only when it passes.
import { langOption, parseFlags, runCli, UsageError } from '../../src/cli/args.js';
import { fetchDeclared } from '../catalog-check.js';
import { chaosStrategies } from '../chaos/strategies.js';
import { startLabCluster } from '../lab-cluster.js';
import { machineInfo, stampOf } from '../report/report.js';
import { renderSlopeTable, summaryLines, writeSoakReport, type SoakReport } from './report.js';
import { SOAK_FLAGS } from './options.js';
import { runSoak, soakPlan } from './run.js';
import { Progress } from '../../src/cli/progress.js';

const CLUSTER_SECONDS = 25;

const USAGE = `usage: npm run soak -- [--minutes N (default 10)] [--strategies NAME[,NAME]] [--sample-seconds N (default 10)] [--out DIR (default faults/results)] [--lang en|zh: the table, the summary and the markdown report; progress lines stay in English]`;

async function main(): Promise<number> {
  const { values } = parseFlags(process.argv.slice(2), SOAK_FLAGS);
  const minutes = Number(values.minutes);
  const sampleSeconds = Number(values['sample-seconds']);
  const lang = langOption(values.lang);
  if (!(minutes >= 0.5 && minutes <= 24 * 60) || !(sampleSeconds >= 1 && sampleSeconds <= 600)) {
    throw new UsageError('--minutes from 0.5 to 1440, --sample-seconds from 1 to 600');
  }
  const progress = new Progress();
  const say = progress.line;
  const started = new Date();
  progress.add([{ key: 'cluster', phase: 'cluster', seconds: CLUSTER_SECONDS, ownPace: true }]);
  const lab = await progress.step('cluster', 'cluster', () => startLabCluster(say));
  let report: SoakReport;
  try {
    const wanted = values.strategies?.flatMap((v) => v.split(',')).filter(Boolean);
    const strategies = chaosStrategies(await fetchDeclared(lab.cluster.info.instances[0] ?? lab.cluster.info.nginx), wanted);
    // Turns sized to the run (turns.ts), so its first round, the warm-up, leaves time to judge.
    const opts = { minutes, strategies, sampleEveryMs: sampleSeconds * 1_000 };
    progress.add(soakPlan(opts));
    const { history, turnMs, ...result } = await runSoak(lab.cluster, opts, say, progress);
    report = {
      ...result,
      stamp: stampOf(started),
      date: started.toISOString(),
      seconds: (Date.now() - started.getTime()) / 1000,
      machine: machineInfo(),
      options: { ...opts, turnMs, strategies: strategies.map((s) => s.name) },
      requests: history.requests.length,
    };
  } finally {
    await lab.stop();
  }
  const files = writeSoakReport(report, values.out, lang);
  console.log(renderSlopeTable(report, lang));
  console.log(`\n${summaryLines(report, lang).join('\n')}\nresults: ${files.json}\n         ${files.md}\nreport:  ${files.html}`);
  progress.summary('soak');
  return report.ok ? 0 : 1;
}

runCli('soak', USAGE, main);
