// `npm run faults -- --chaos`: a private lab cluster, the chaos run, its report, exit 0 only when every check holds.
import path from 'node:path';
import { fetchDeclared } from '../catalog-check.js';
import { startLabCluster } from '../lab-cluster.js';
import type { FaultOptions } from '../options.js';
import { machineInfo, stampOf } from '../report/report.js';
import { renderChaosTable, summaryLines, writeChaosReport, type ChaosReport } from './report.js';
import { DEFAULT_LOAD, runChaos } from './run.js';
import { chaosStrategies } from './strategies.js';
import type { Progress } from '../../src/cli/progress.js';

/** The run's plan for the progress lines: the cluster, the load under the nemesis (its own length), then the heal, the probes and the checker. */
const CLUSTER_SECONDS = { single: 25, replicated: 45, hosts: 30, 'hosts,replicated': 50 } as const;
const CHECK_SECONDS = 60;

export async function chaosMain(opts: FaultOptions & { chaos: NonNullable<FaultOptions['chaos']> }, progress: Progress): Promise<number> {
  const say = progress.line;
  const started = new Date();
  const stamp = stampOf(started);
  progress.add([
    { key: 'cluster', phase: 'cluster', seconds: CLUSTER_SECONDS[opts.chaos.topology], ownPace: true },
    { key: 'load', phase: 'load under the nemesis', seconds: opts.chaos.seconds, ownPace: true },
    { key: 'check', phase: 'heal, recovery probes and the checker', seconds: CHECK_SECONDS, ownPace: true },
  ]);
  if (opts.lang === 'zh') say('chaos: progress lines are in English; the table, the summary and the markdown report are in Chinese (--lang zh)');
  say(`chaos: starting a private cluster (${opts.chaos.topology} topology) …`);
  const lab = await progress.step('cluster', 'cluster', () => startLabCluster(say, opts.chaos.topology));
  let report: ChaosReport | undefined;
  try {
    const declared = await fetchDeclared(lab.cluster.info.instances[0] ?? lab.cluster.info.nginx);
    const strategies = chaosStrategies(declared, opts.strategies, { linksCut: opts.chaos.topology.startsWith('hosts') });
    const result = await runChaos(lab.cluster, { ...opts.chaos, strategies, load: DEFAULT_LOAD }, say, progress);
    const strategyFlag = opts.strategies ? ` --strategies ${opts.strategies.join(',')}` : '';
    report = {
      ...result,
      stamp,
      date: started.toISOString(),
      seconds: (Date.now() - started.getTime()) / 1000,
      machine: machineInfo(),
      options: { ...opts.chaos, load: DEFAULT_LOAD, strategies: strategies.map((s) => s.name) },
      rerun: `npm run faults -- --chaos --seconds ${opts.chaos.seconds} --seed ${opts.chaos.seed}${opts.chaos.topology === 'single' ? '' : ` --topology ${opts.chaos.topology}`}${strategyFlag}`,
    };
  } finally {
    await lab.stop(report?.verdict.ok ? undefined : path.resolve(opts.out, `${stamp}-chaos-logs`));
  }
  const files = writeChaosReport(report, opts.out, opts.lang);
  console.log(renderChaosTable(report, false, opts.lang));
  console.log(`\n${summaryLines(report, opts.lang).join('\n')}`);
  console.log(`results: ${files.json}\n         ${files.md}\nreport:  ${files.html}`);
  progress.summary('chaos');
  return report.verdict.ok ? 0 : 1;
}
