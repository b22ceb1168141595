// The bench's plan, step by step, with what each step should take: the estimates the progress
// lines start from (src/cli/plan-clock.ts corrects them as steps finish).
import type { PlannedStep } from '../src/cli/plan-clock.js';
import type { BenchOptions } from './options.js';
import type { Topology } from '../report/bench/report.js';

/** Per step: resetting the stock, starting the load, reading the units left. */
export const STEP_OVERHEAD_SECONDS = 0.5;
/** The unmeasured first load on each instance (bench.ts). */
export const PREWARM_SECONDS = 2;

export const stepKey = {
  prewarm: (t: Topology) => `prewarm/${t}`,
  ceiling: (round: number, t: Topology) => `ceiling/${round}/${t}`,
  window: (round: number, cell: string) => `window/${round}/${cell}`,
  race: (cell: string) => `race/${cell}`,
};

/**
 * How long a race of `size` should take: the units sell at the strategy's measured goodput, the
 * rest of the requests are answered (409/503) at least as fast; at most maxSeconds.
 */
export function raceEstimate(size: { requests: number; initial: number }, goodput: number, answersPerSec: number, maxSeconds: number): number {
  const selling = goodput > 0 ? size.initial / goodput : maxSeconds;
  const rest = (size.requests - size.initial) / Math.max(goodput + answersPerSec, 1);
  return Math.min(selling + rest, maxSeconds) + STEP_OVERHEAD_SECONDS;
}

/**
 * `cells`: each strategy × topology, and whether its race is a run of its own (else its last
 * window sells out and is its race; a cell found too slow for that gets its race step later).
 */
export function benchPlan(
  o: BenchOptions,
  cells: readonly { key: string; raceApart: boolean }[],
  topologies: readonly Topology[],
  withWrk: boolean,
): PlannedStep[] {
  const load = o.warmupSeconds + o.windowSeconds + STEP_OVERHEAD_SECONDS;
  const steps: PlannedStep[] = topologies.map((t) => ({ key: stepKey.prewarm(t), phase: 'warm-up', seconds: PREWARM_SECONDS + STEP_OVERHEAD_SECONDS }));
  for (let r = 0; r < o.rounds; r++) {
    for (const t of topologies)
      steps.push({ key: stepKey.ceiling(r, t), phase: 'ceiling', seconds: load + (withWrk ? o.windowSeconds + STEP_OVERHEAD_SECONDS : 0) });
  }
  for (let r = 0; r < o.rounds; r++) {
    for (const c of cells) steps.push({ key: stepKey.window(r, c.key), phase: 'windows', seconds: load });
  }
  // Until a window has measured the strategy's goodput: the race as sized by time, or a guess.
  const raceGuess = (o.raceSeconds ?? 2) + STEP_OVERHEAD_SECONDS;
  for (const c of cells.filter((x) => x.raceApart)) steps.push({ key: stepKey.race(c.key), phase: 'races', seconds: raceGuess });
  return steps;
}
