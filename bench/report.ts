// The bench's results as data, and the pure arithmetic on them (oversold, efficiency, verdicts).
import type { StoreKind } from '../src/stock/store.js';
import type { CatalogEntry } from './catalog.js';

export type Topology = 'one' | 'three';
export const TOPOLOGIES: readonly Topology[] = ['one', 'three'];
export const TOPOLOGY_LABEL: Record<Topology, string> = { one: '1 instance', three: '3 via nginx' };

/** One strategy fired at one topology. */
export interface RunResult {
  strategy: string;
  family: string;
  store: StoreKind;
  topology: Topology;
  /** What the course shows for this strategy and topology. */
  expected: 'exact' | 'oversells';
  requests: number;
  ok: number;
  soldOut: number;
  /** Answers other than 200/409, plus requests with no answer at all. */
  errors: number;
  byStatus: Record<number, number>;
  initial: number;
  left: number;
  deducted: number;
  /** Successes minus units really deducted: a lower bound when some requests went unanswered. */
  oversold: number;
  /**
   * Requests that got no answer (cut off by truncation, or timed out): each may still have deducted
   * on the server, so the true oversold lies in [oversold, oversold + unanswered].
   */
  unanswered: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  seconds: number;
  truncated: boolean;
  /** rps ÷ rps of `mutex` on one instance; null without that reference. */
  efficiency: number | null;
}

/** GET /noop through the same path: what the bench and the HTTP stack can do with no work at all. */
export interface Ceiling {
  topology: Topology;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

export interface BenchReport {
  stamp: string;
  date: string;
  machine: { nproc: number; cpu: string; node: string; platform: string };
  options: { requests: number; connections: number; workMs: number; ttlMs?: number; waitMs?: number; maxSeconds: number; initial: number };
  target: { three: string; one: string | null; source: string };
  catalog: CatalogEntry[];
  ceilings: Ceiling[];
  runs: RunResult[];
  /** Strategy whose one-instance req/s is the efficiency reference. */
  reference: string;
  notes: string[];
}

export const REFERENCE_STRATEGY = 'mutex';

export function oversoldOf(ok: number, initial: number, left: number): number {
  return ok - (initial - left);
}

/** Fills in efficiency against the reference strategy's one-instance rate (null when it was not run). */
export function withEfficiency(runs: RunResult[], reference = REFERENCE_STRATEGY): RunResult[] {
  const ref = runs.find((r) => r.strategy === reference && r.topology === 'one');
  const base = ref && ref.rps > 0 ? ref.rps : undefined;
  return runs.map((r) => ({ ...r, efficiency: base ? r.rps / base : null }));
}

export type Verdict = 'exact' | 'oversold' | 'undersold';

/**
 * Oversold only when certain (the lower bound is above 0). Undersold: units left the store without
 * a 200 beyond what unanswered requests can explain (e.g. an error after the write committed).
 */
export function verdictOf(r: Pick<RunResult, 'oversold'> & Partial<Pick<RunResult, 'unanswered'>>): Verdict {
  return r.oversold > 0 ? 'oversold' : r.oversold + (r.unanswered ?? 0) < 0 ? 'undersold' : 'exact';
}

/** Requests whose outcome is unknown: no answer, at most one per connection when a run is cut. */
export function unansweredOf(requests: number, answered: number, noAnswer: number, truncated: boolean, connections: number): number {
  return Math.min(requests - answered, noAnswer + (truncated ? connections : 0));
}

/** Whether the measurement agrees with the course's expectation for this strategy and topology. */
export function asExpected(r: Pick<RunResult, 'oversold' | 'expected'> & Partial<Pick<RunResult, 'unanswered'>>): boolean {
  return (verdictOf(r) === 'oversold') === (r.expected === 'oversells');
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
