// `npm run faults`: boots a private cluster (temp dir, free loopback ports, fault hooks on), runs
// each scenario × strategy, prints the table, writes <out>/<stamp>.{md,json,html} and stops the
// cluster. Scenarios that need the replicated topology run after the others, on a cluster of their own. Progress goes to stderr, the table to stdout. Exit 0 only when every row is as expected.
import path from 'node:path';
import { chaosMain } from './chaos/cli.js';
import { incidentsMain } from './incidents/cli.js';
import { catalogMismatches, type Declared } from './catalog-check.js';
import { startLabCluster } from './lab-cluster.js';
import { declaredOf } from './locks.js';
import { hasNetAdmin } from '../src/net/hosts.js';
import { runScenarios } from './matrix.js';
import { runCli } from '../src/cli/args.js';
import { Progress } from '../src/cli/progress.js';
import { faultPlan, faultStepKey, pastSeconds } from './plan.js';
import { parseFaultArgs, USAGE } from './options.js';
import { renderTable } from './report/markdown.js';
import { allAsExpected, machineInfo, stampOf, type FaultReport, type ScenarioRun } from './report/report.js';
import type { FaultRow } from './row.js';
import { writeFaultReport } from './report/write.js';
import { FAULT_WORDS } from './report/words.js';
import { BENCH_WORDS } from '../report/bench/words.js';
import { scenarioNamed } from './scenarios/index.js';
import type { Scenario } from './scenario.js';

async function main(): Promise<number> {
  const opts = parseFaultArgs(process.argv.slice(2));
  const progress = new Progress();
  const say = progress.line;
  if (opts.chaos) return chaosMain({ ...opts, chaos: opts.chaos }, progress);
  if (opts.incidents) return incidentsMain(opts, progress);
  const started = new Date();
  const stamp = stampOf(started);
  const wanted = opts.strategies;
  const chosen = opts.scenarios.map(scenarioNamed).filter((s): s is Scenario => s !== undefined);
  const runs: ScenarioRun[] = [];
  const rows: FaultRow[] = [];
  let declared: Map<string, Declared> | undefined;
  // The scenarios that need the replicated topology get a cluster of that topology, after the others.
  const byTopology = (['single', 'replicated', 'hosts', 'hosts,replicated'] as const)
    .map((topology) => ({ topology, scenarios: chosen.filter((s) => (s.topology ?? 'single') === topology) }))
    .filter((t) => t.scenarios.length > 0)
    // Without root the hosts topology cannot be built: its scenarios are left out, and said so.
    .filter(
      (t) =>
        !t.topology.startsWith('hosts') ||
        hasNetAdmin() ||
        (say(`faults: skipping ${t.scenarios.map((s) => s.name).join(', ')}: the hosts topology needs root (or CAP_NET_ADMIN)`), false),
    );
  progress.add(faultPlan(byTopology, pastSeconds(opts.out)));
  for (const { topology, scenarios } of byTopology) {
    say(`faults: starting a private cluster (${topology} topology) …`);
    const lab = await progress.step(faultStepKey.cluster(topology), `cluster (${topology})`, () => startLabCluster(say, topology));
    let ok = false;
    try {
      const ctx = {
        cluster: lab.cluster,
        sizes: opts.sizes,
        wants: (strategy: string) => wanted === undefined || wanted.includes(strategy),
        log: say,
        workDir: lab.dir,
      };
      // The catalog the scenarios build their cases from (locks.ts), read before the first of them.
      declared ??= await declaredOf(lab.cluster);
      const done = await runScenarios(ctx, scenarios, (s, run) => progress.step(faultStepKey.scenario(s.name), s.name, run));
      runs.push(...done.runs);
      rows.push(...done.rows);
      ok = done.rows.every((r) => r.asExpected) && done.runs.every((r) => r.error === undefined);
    } finally {
      // a case not as expected (or a crash) keeps the servers' logs beside the report
      await lab.stop(ok ? undefined : path.resolve(opts.out, `${stamp}-${topology}-logs`));
    }
  }
  const report: FaultReport = {
    stamp,
    date: started.toISOString(),
    seconds: (Date.now() - started.getTime()) / 1000,
    machine: machineInfo(),
    options: { scenarios: opts.scenarios, ...(wanted && { strategies: wanted }), sizes: opts.sizes },
    scenarios: runs,
    rows,
    catalogDeclarations: [...(declared?.values() ?? [])].filter((d) => d.expected.faults !== undefined).length,
    catalogMismatches: catalogMismatches(rows, declared ?? new Map()),
  };
  progress.summary('faults');
  const files = writeFaultReport(report, opts.out, opts.lang);
  console.log(renderTable(report, opts.lang));
  console.log(BENCH_WORDS[opts.lang].files(files.json, files.md, files.html));
  const ok = allAsExpected(report);
  const notAsExpected = rows.filter((r) => !r.asExpected).length;
  const w = FAULT_WORDS[opts.lang];
  console.log(ok ? w.allAsExpected((report.seconds / 60).toFixed(1)) : w.someNot(notAsExpected, report.catalogMismatches.length));
  return ok ? 0 : 1;
}

runCli('faults', USAGE, main);
