// Runs the chosen scenarios one after the other on one cluster and collects their rows. A scenario
// that throws is recorded as failed and the next one still runs.
import { ensureReady } from './cluster-ops.js';
import { errorMessage } from './errors.js';
import type { ScenarioRun } from './report/report.js';
import type { FaultRow } from './row.js';
import type { FaultContext, Scenario } from './scenario.js';

/** Runs one scenario as a step of the caller's plan (timed for its progress lines). */
export type ScenarioStep = <T>(scenario: Scenario, run: () => Promise<T>) => Promise<T>;

export async function runScenarios(
  ctx: FaultContext,
  scenarios: readonly Scenario[],
  step: ScenarioStep = (_s, run) => run(),
): Promise<{ runs: ScenarioRun[]; rows: FaultRow[] }> {
  const runs: ScenarioRun[] = [];
  const rows: FaultRow[] = [];
  for (const s of scenarios) {
    ctx.log(`== ${s.name}`);
    const t0 = Date.now();
    let error: string | undefined;
    await step(s, async () => {
      try {
        rows.push(...(await s.run(ctx)));
      } catch (err) {
        error = errorMessage(err);
        ctx.log(`${s.name} FAILED: ${error}`);
        await ensureReady(ctx.cluster).catch((e: unknown) => ctx.log(`cluster not restored: ${errorMessage(e)}`));
      }
    });
    runs.push({ name: s.name, description: s.description, seconds: (Date.now() - t0) / 1000, ...(error !== undefined && { error }) });
  }
  return { runs, rows };
}
