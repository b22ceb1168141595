// The round-trip sweep's results as data (rtt-<stamp>.json): per strategy its k and, at each round
// trip, the goodput against the bound 1/(k·r); the links' own round trips beside them.
import type { RaceFigures, SoldCheck } from './report.js';
import type { Spread } from './stats.js';

/** One sale's messages to each server, counted by the servers (npm run round-trips). */
export interface Counters {
  redis: number;
  redlock: number;
  mysql: number;
  zookeeper: number;
  /** Absent in runs recorded before etcd and PostgreSQL joined the cluster. */
  etcd?: number;
  postgres?: number;
}

export interface SweepCell {
  rttMs: number;
  goodput: Spread;
  /** 1/(k·r) in sales per second; null at r = 0 (no bound from the network). */
  bound: number | null;
  /** goodput.median / bound; null where there is no bound. */
  fraction: number | null;
  race: RaceFigures;
  /** Every window's check of the store (units sold against units gone). */
  windows: SoldCheck[];
}

export interface SweepRow {
  strategy: string;
  family: string;
  /** What the catalog expects of a race through nginx: a lock per instance (mutex) oversells. */
  expected: 'exact' | 'oversells';
  /** Messages per sale at c = 1, as the servers counted them. */
  counts: Counters;
  k: number;
  cells: SweepCell[];
}

export interface LinkTimes {
  rttMs: number;
  mysql: Spread;
  redis: Spread;
}

export interface SweepReport {
  kind: 'rtt-sweep';
  stamp: string;
  date: string;
  machine: { nproc: number; cpu: string; node: string };
  rtts: number[];
  rounds: number;
  connections: number;
  windowSeconds: number;
  /** The lock parameters every request carried (--ttlMs, --workMs, --waitMs; absent in older reports): the service's defaults otherwise. */
  params?: Record<string, number>;
  target: string;
  /** One request's round trip through the forwarders at each r, and directly at the servers (r = 0, no forwarder). */
  linkTimes: LinkTimes[];
  direct: { mysql: Spread; redis: Spread };
  /** Requests timed per link (20 in older reports). */
  linkSamples?: number;
  /**
   * The forwarders' own cost at r = 0: the forwarded link's median less the direct one's, the two
   * timed in turn (request by request, so drift hits both alike); absent in older reports.
   */
  forwarderCost?: { mysql: number; redis: number };
  rows: SweepRow[];
  seconds: number;
  notes: string[];
}

/** 1/(k·r) in sales per second, for r in ms; null when there is no bound (r or k is 0). */
export function boundOf(k: number, rttMs: number): number | null {
  return rttMs > 0 && k > 0 ? 1000 / (k * rttMs) : null;
}
