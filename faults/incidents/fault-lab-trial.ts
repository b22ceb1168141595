// A gallery trial that is one of the fault lab's own cases, run through the service: the case runs
// once per gallery run (every incident naming the same trial reads the same row), and the trial
// reports what its row measured. The lab's locks are tried this way, under the fault of the report.
import type { FaultRow } from '../row.js';
import type { FaultContext } from '../scenario.js';
import { LAB, type Trial, type TrialSpec, type Words } from './incident.js';

export interface FaultLabJudge {
  /** The symptom of the report showed in the row (two holders, units oversold). */
  reproduced(row: FaultRow): boolean;
  measured(row: FaultRow): Words;
  /** Facts of this case worth a test's assertion, beside the oversold count. */
  facts?(row: FaultRow): Record<string, string | number | boolean>;
}

/** `name`: the lock as the table shows it after "stocklab", e.g. "redis-watchdog, fenced=1". */
export function faultLabTrial(name: string, run: (ctx: FaultContext) => Promise<FaultRow>, judge: FaultLabJudge): TrialSpec {
  const runs = new WeakMap<FaultContext, Promise<FaultRow>>();
  return {
    pkg: `${LAB} ${name}`,
    async run(ctx): Promise<Omit<Trial, 'pkg' | 'version'>> {
      const pending = runs.get(ctx) ?? run(ctx);
      runs.set(ctx, pending);
      const row = await pending;
      return {
        reproduced: judge.reproduced(row),
        measured: judge.measured(row),
        facts: { oversold: row.oversold, asExpected: row.asExpected, answers: JSON.stringify(row.answers), ...judge.facts?.(row) },
      };
    },
  };
}

/** The first answer a role got in a case, as "200" or "503 fenced" ('no answer' if none). */
export function answerOf(row: FaultRow, role: string): string {
  return Object.keys(row.byRole[role] ?? {})[0] ?? 'no answer';
}
