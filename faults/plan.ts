// The fault run's plan for the progress lines: a cluster per topology, then its scenarios. A
// scenario's estimate is how long it took in the newest report in the results folder (the same
// machine's pace), else a flat guess; the progress clock corrects both as scenarios finish.
import fs from 'node:fs';
import path from 'node:path';
import type { PlannedStep } from '../src/cli/plan-clock.js';
import type { FaultReport } from './report/report.js';
import type { Scenario } from './scenario.js';

const CLUSTER_START_SECONDS = 25;
const SCENARIO_GUESS_SECONDS = 45;

export const faultStepKey = {
  cluster: (topology: string) => `cluster/${topology}`,
  scenario: (name: string) => `scenario/${name}`,
};

/** Seconds per scenario from the newest report in `dir` (none when there is none, or it cannot be read). */
export function pastSeconds(dir: string): Map<string, number> {
  try {
    const newest = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .at(-1);
    if (!newest) return new Map();
    const report = JSON.parse(fs.readFileSync(path.join(dir, newest), 'utf8')) as Partial<FaultReport>;
    return new Map((report.scenarios ?? []).filter((s) => s.error === undefined).map((s) => [s.name, s.seconds]));
  } catch {
    return new Map();
  }
}

export function faultPlan(byTopology: readonly { topology: string; scenarios: readonly Scenario[] }[], past: ReadonlyMap<string, number>): PlannedStep[] {
  return byTopology.flatMap(({ topology, scenarios }) => [
    { key: faultStepKey.cluster(topology), phase: 'cluster', seconds: CLUSTER_START_SECONDS, ownPace: true },
    ...scenarios.map((s) => ({ key: faultStepKey.scenario(s.name), phase: 'scenarios', seconds: past.get(s.name) ?? SCENARIO_GUESS_SECONDS })),
  ]);
}
