// `npm run faults -- --scenario incidents`: a private lab cluster, the gallery's incidents one after
// the other, the table, its files. Exit 0 when every incident showed what the gallery claims of it
// (reproduced on the pinned version, not on the fixed one, and every trial ran).
import path from 'node:path';
import type { Progress } from '../../src/cli/progress.js';
import { startLabCluster } from '../lab-cluster.js';
import type { FaultOptions } from '../options.js';
import { machineInfo, stampOf } from '../report/report.js';
import { INCIDENTS } from './index.js';
import type { Incident, IncidentRow } from './incident.js';
import type { LabTopology } from '../scenario.js';
import { renderIncidentBody, writeIncidentReport } from './report.js';
import { asClaimed, runIncident } from './run.js';

const topologyOf = (i: Incident): LabTopology => i.topology ?? 'single';

/** Seconds per incident, for the progress line's plan (the watchdog's frozen holder is the longest). */
const INCIDENT_SECONDS = 6;

export async function incidentsMain(opts: FaultOptions, progress: Progress): Promise<number> {
  const say = progress.line;
  const started = new Date();
  const stamp = stampOf(started);
  // One private cluster per topology the incidents need, one after the other; rows keep the gallery's order.
  const topologies = [...new Set(INCIDENTS.map(topologyOf))];
  progress.add([
    ...topologies.map((t) => ({ key: `cluster ${t}`, phase: 'cluster', seconds: 25, ownPace: true })),
    ...INCIDENTS.map((i) => ({ key: i.id, phase: 'incidents', seconds: INCIDENT_SECONDS })),
  ]);
  const byId = new Map<string, IncidentRow>();
  let ok = true;
  for (const topology of topologies) {
    say(`incidents: starting a private cluster (${topology} topology) …`);
    const lab = await progress.step(`cluster ${topology}`, 'cluster', () => startLabCluster(say, topology));
    let ran = false;
    try {
      const ctx = { cluster: lab.cluster, sizes: opts.sizes, wants: () => true, log: say, workDir: lab.dir };
      for (const incident of INCIDENTS.filter((i) => topologyOf(i) === topology)) {
        const row = await progress.step(incident.id, incident.id, () => runIncident(ctx, incident));
        byId.set(incident.id, row);
        ok &&= asClaimed(row);
      }
      ran = true;
    } finally {
      ok &&= ran;
      await lab.stop(ok ? undefined : path.resolve(opts.out, `${stamp}-incidents-${topology.replace(',', '-')}-logs`));
    }
  }
  const rows = INCIDENTS.flatMap((i) => byId.get(i.id) ?? []);
  const report = { stamp, date: started.toISOString(), seconds: (Date.now() - started.getTime()) / 1000, machine: machineInfo(), rows };
  progress.summary('incidents');
  const files = writeIncidentReport(report, opts.out, opts.lang);
  console.log(renderIncidentBody(report, opts.lang));
  console.log(`\n${files.md}\n${files.json}\n${files.html}`);
  return ok ? 0 : 1;
}
