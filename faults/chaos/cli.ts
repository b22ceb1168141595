// `npm run faults -- --chaos`: a private lab cluster, the chaos run, its report, exit 0 only when every check holds.
import path from 'node:path';
import { fetchDeclared } from '../catalog-check.js';
import { startLabCluster } from '../lab-cluster.js';
import type { FaultOptions } from '../options.js';
import { machineInfo, stampOf } from '../report/report.js';
import { renderChaosTable, summaryLines, writeChaosReport, type ChaosReport } from './report.js';
import { DEFAULT_LOAD, runChaos } from './run.js';
import { chaosStrategies } from './strategies.js';

export async function chaosMain(opts: FaultOptions & { chaos: { seconds: number; seed: number } }, say: (line: string) => void): Promise<number> {
  const started = new Date();
  const stamp = stampOf(started);
  say('chaos: starting a private cluster …');
  const lab = await startLabCluster(say);
  let report: ChaosReport | undefined;
  try {
    const declared = await fetchDeclared(lab.cluster.info.instances[0] ?? lab.cluster.info.nginx);
    const strategies = chaosStrategies(declared, opts.strategies);
    const result = await runChaos(lab.cluster, { ...opts.chaos, strategies, load: DEFAULT_LOAD }, say);
    const strategyFlag = opts.strategies ? ` --strategies ${opts.strategies.join(',')}` : '';
    report = {
      ...result,
      stamp,
      date: started.toISOString(),
      seconds: (Date.now() - started.getTime()) / 1000,
      machine: machineInfo(),
      options: { ...opts.chaos, load: DEFAULT_LOAD, strategies: strategies.map((s) => s.name) },
      rerun: `npm run faults -- --chaos --seconds ${opts.chaos.seconds} --seed ${opts.chaos.seed}${strategyFlag}`,
    };
  } finally {
    await lab.stop(report?.verdict.ok ? undefined : path.resolve(opts.out, `${stamp}-chaos-logs`));
  }
  const files = writeChaosReport(report, opts.out);
  console.log(renderChaosTable(report));
  console.log(`\n${summaryLines(report).join('\n')}`);
  console.log(`results: ${files.json}\n         ${files.md}\nreport:  ${files.html}`);
  return report.verdict.ok ? 0 : 1;
}
