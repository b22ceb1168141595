// The overload ramp's results as data (ramp-<stamp>.json): each strategy's steps of N clients, every
// answer by class, and the arithmetic its report quotes (refusals, unexpected answers, where p99 passes a second).
import { isAllowedAnswer, isRefusal, UNKNOWN_OUTCOME } from '../../src/http/answers.js';

/** Requests per client at each step: the excess over the units meets "sold out" once they run out. */
export const REQUESTS_PER_CLIENT = 2;
/**
 * Clients one load process holds: the load is spread over ceil(N / this) processes, each its own
 * event loop and its own open files. Node raises its soft open-file limit to the hard one at start
 * (20,000 on the lab machines), so a process could hold more; spreading keeps each event loop
 * responsive enough that the generator is not what is measured.
 */
export const CLIENTS_PER_PROCESS = 2_500;
/** The p99 the ramp reports each strategy crossing. */
export const P99_MARK_MS = 1_000;

export interface RampStep {
  strategy: string;
  clients: number;
  /** Load processes the clients were spread over. */
  processes: number;
  requests: number;
  initial: number;
  /** The lowest open-file limit (soft) among the load processes; null where not known. */
  nofile: number | null;
  /** Set when the load generator could not hold its clients: the step measures the client, not the service. */
  clientLimit?: string;
  seconds: number;
  truncated: boolean;
  /** 200 answers per second of the step. */
  goodput: number;
  p50Ms: number;
  p99Ms: number;
  /** Every answer by answerKey: "200", "409 sold_out", "503 busy (nginx)", "503 lock_timeout", … */
  byAnswer: Record<string, number>;
  /** Requests with no HTTP answer, and by cause (ECONNRESET, timeout, closed, …). */
  noAnswer: number;
  noAnswerBy: Record<string, number>;
  ok: number;
  deducted: number;
  oversold: number;
}

export interface RampReport {
  stamp: string;
  date: string;
  machine: { nproc: number; cpu: string; node: string; platform: string };
  target: string;
  strategies: string[];
  steps: number[];
  params: Record<string, number>;
  maxSeconds: number;
  results: RampStep[];
  seconds: number;
}

/** A step's refusals: 503s that sold nothing. */
export const refusedOf = (s: RampStep): number => Object.entries(s.byAnswer).reduce((n, [k, v]) => n + (isRefusal(k) ? v : 0), 0);
/** A step's answers outside the documented list (a 502 from nginx, a 500), and outcomes unknown. */
export const unexpectedOf = (s: RampStep): number =>
  Object.entries(s.byAnswer).reduce((n, [k, v]) => n + (!isAllowedAnswer(k) || k === UNKNOWN_OUTCOME ? v : 0), 0);

/** The first step at which a strategy's p99 passed P99_MARK_MS; undefined if none did. */
export function p99Crossing(report: RampReport, strategy: string): number | undefined {
  return report.results.find((s) => s.strategy === strategy && !s.clientLimit && s.p99Ms > P99_MARK_MS)?.clients;
}
