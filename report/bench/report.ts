// The bench's results as data, and the pure arithmetic on them (oversold, efficiency, verdicts, ties).
import { BENCH_WORDS } from './words.js';
import type { StoreKind } from '../../src/stock/store.js';
import type { CatalogEntry } from '../../src/load/catalog.js';
import type { BenchOptions } from './run-options.js';
import { standings, type Spread } from './stats.js';
import type { WindowTimeSummary } from './window-time.js';
import type { PhaseTime } from '../../src/cli/plan-clock.js';
import { TOPOLOGIES, type Topology } from './topology.js';

export { TOPOLOGIES, type Topology };
export const TOPOLOGY_LABEL: Record<Topology, string> = BENCH_WORDS.en.topology;

/** One check of the count against the store: 200 answers minus units that really left it. */
export interface SoldCheck {
  /** 200 answers − units deducted; a lower bound when some requests went unanswered. */
  oversold: number;
  /**
   * Requests that got no answer (cut off by a time bound, or timed out): each may still have
   * deducted on the server, so the true oversold lies in [oversold, oversold + unanswered].
   */
  unanswered: number;
}

/** The oversell race: more requests than units, run to the end, counted from the store. */
export interface RaceFigures extends SoldCheck {
  requests: number;
  initial: number;
  ok: number;
  soldOut: number;
  /** Every answer by answerKey ("200", "409 sold_out", "503 lock_timeout", …). */
  byAnswer: Record<string, number>;
  /** 503 refusals (nothing sold). */
  refused: number;
  /** 503 outcome_unknown: the write was sent and not confirmed; counted apart from refusals (optional in older reports). */
  unknownOutcome?: number;
  /** Answers outside the documented list (src/http/answers.ts), plus requests with no answer. */
  unexpected: number;
  left: number;
  deducted: number;
  seconds: number;
  truncated: boolean;
  /** The race was its strategy's last window, run until the stock sold out (absent: a race of its own). */
  window?: true;
}

/** Throughput from the fixed time windows, one sample per round. */
export interface WindowFigures {
  /** Successful deductions (200s) per second: goodput. */
  goodput: Spread;
  /** 503 answers per second, reported apart from goodput. */
  refusedPerSec: Spread;
  p50Ms: Spread;
  p99Ms: Spread;
}

/** One strategy on one topology. */
export interface RunResult {
  strategy: string;
  family: string;
  store: StoreKind;
  topology: Topology;
  /** What the course shows for this strategy and topology. */
  expected: 'exact' | 'oversells';
  race: RaceFigures;
  throughput: WindowFigures;
  /** The worst count check of the run: the race's and every window's (never a median). */
  worst: SoldCheck;
  /** Median goodput ÷ median goodput of `mutex` on one instance; null without that reference. */
  efficiency: number | null;
  /** Among the strategies on the same topology, by goodput; ties are overlapping ranges. */
  rank: number;
  tiesWith: string[];
  /**
   * Round trips in one sale's serial path (k), counted by the servers for sales one at a time on
   * one instance (npm run round-trips' c=1, with the RedLock masters counted once); absent when the
   * target is not the recorded native cluster, or in runs made before it was measured.
   */
  messagesPerSale?: number;
}

/** GET /noop through the same path: what the load generator and the HTTP stack can do with no work. */
export interface Ceiling {
  topology: Topology;
  /** The bench's own load generator (autocannon in its load process), req/s. */
  autocannon: Spread;
  /** wrk on the same URL in the same rounds, the reference; null when wrk is not installed. */
  wrk: Spread | null;
}

/** The options that shaped the figures (not where they were sent or written). */
/** The options a report keeps; `all` is absent from reports made before the course's line was the default (they ran every strategy). */
export type BenchOptionsRecord = Omit<BenchOptions, 'strategies' | 'all' | 'target' | 'instance' | 'mysql' | 'redis' | 'postgres' | 'out' | 'lang'> & {
  all?: boolean;
};

export interface BenchReport {
  stamp: string;
  date: string;
  machine: { nproc: number; cpu: string; node: string; platform: string };
  options: BenchOptionsRecord;
  target: { three: string; one: string | null; source: string };
  catalog: CatalogEntry[];
  ceilings: Ceiling[];
  runs: RunResult[];
  /** Strategy whose one-instance goodput is the efficiency reference. */
  reference: string;
  /** How long the bench took, in seconds. */
  seconds: number;
  /** Where a throughput window's time went, part by part (absent in reports from before it was measured). */
  windowTime?: WindowTimeSummary;
  /** Where the whole run's time went, per phase, as its progress summary says (a lab's includes its cluster); absent in older reports. */
  phases?: PhaseTime[];
  notes: string[];
}

export const REFERENCE_STRATEGY = 'mutex';

export type Verdict = 'exact' | 'oversold' | 'undersold';

/**
 * Oversold only when certain (the lower bound is above 0). Undersold: units left the store without
 * a 200 beyond what unanswered requests can explain (e.g. an error after the write committed).
 */
export function verdictOf(c: Pick<SoldCheck, 'oversold'> & Partial<Pick<SoldCheck, 'unanswered'>>): Verdict {
  return c.oversold > 0 ? 'oversold' : c.oversold + (c.unanswered ?? 0) < 0 ? 'undersold' : 'exact';
}

/** The check to report from several: the largest oversell, else the largest shortfall, else the most unanswered. */
export function worstOf(checks: SoldCheck[]): SoldCheck {
  const severity = (c: SoldCheck) => ({ oversold: 2, undersold: 1, exact: 0 })[verdictOf(c)];
  return checks.reduce<SoldCheck>(
    (worst, c) => {
      const d = severity(c) - severity(worst);
      if (d !== 0) return d > 0 ? c : worst;
      if (verdictOf(c) === 'oversold') return c.oversold > worst.oversold ? c : worst;
      if (verdictOf(c) === 'undersold') return c.oversold + c.unanswered < worst.oversold + worst.unanswered ? c : worst;
      return c.unanswered > worst.unanswered ? c : worst;
    },
    { oversold: 0, unanswered: 0 },
  );
}

/** Requests whose outcome is unknown: no answer, at most one per connection when a run is cut. */
export function unansweredOf(requests: number, answered: number, noAnswer: number, truncated: boolean, connections: number): number {
  return Math.min(requests - answered, noAnswer + (truncated ? connections : 0));
}

/** Whether the measurement agrees with the course's expectation for this strategy and topology. */
export function asExpected(r: Pick<RunResult, 'worst' | 'expected'>): boolean {
  return (verdictOf(r.worst) === 'oversold') === (r.expected === 'oversells');
}

/** Fills in efficiency (ratio of medians) and each run's standing among the runs on its topology. */
export function withStandings(runs: RunResult[], reference = REFERENCE_STRATEGY): RunResult[] {
  const ref = runs.find((r) => r.strategy === reference && r.topology === 'one');
  const base = ref && ref.throughput.goodput.median > 0 ? ref.throughput.goodput.median : undefined;
  const byTopology = new Map(
    TOPOLOGIES.map((t) => [t, standings(runs.filter((r) => r.topology === t).map((r) => ({ name: r.strategy, spread: r.throughput.goodput })))]),
  );
  return runs.map((r) => {
    const s = byTopology.get(r.topology)?.get(r.strategy);
    return { ...r, efficiency: base ? r.throughput.goodput.median / base : null, rank: s?.rank ?? 0, tiesWith: s?.tiesWith ?? [] };
  });
}

/** Runs in catalog order (the course's order of families), one instance before three. */
export function orderRuns(runs: RunResult[], catalog: Pick<CatalogEntry, 'name'>[]): RunResult[] {
  const rank = new Map(catalog.map((s, i) => [s.name, i]));
  const pos = (r: RunResult) => rank.get(r.strategy) ?? Number.MAX_SAFE_INTEGER;
  return [...runs].sort((a, b) => pos(a) - pos(b) || TOPOLOGIES.indexOf(a.topology) - TOPOLOGIES.indexOf(b.topology));
}

export function ceilingOf(report: Pick<BenchReport, 'ceilings'>, topology: Topology): Ceiling | undefined {
  return report.ceilings.find((c) => c.topology === topology);
}
