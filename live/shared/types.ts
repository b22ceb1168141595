// What the live lab's server and its page say to each other: race settings, frames, holds, faults,
// and a run's event log. Plain data (JSON), shared by both sides.
import type { Bilingual } from '../../src/lang.js';
import type { StoreKind } from '../../src/stock/store.js';

export type Via = 'one' | 'three';
/** Where the race's first request stops its instance: every lock strategy's two, and those inside some locks' own steps. */
export const PAUSE_POINTS = ['before-write', 'after-acquire', 'after-setnx', 'before-del', 'after-read'] as const;
export type PausePoint = (typeof PAUSE_POINTS)[number];
/** The lock services an instance may be cut from (the hosts topology): the main Redis, or ZooKeeper. */
export const CUT_FROM = ['redis', 'zookeeper'] as const;
export type CutFrom = (typeof CUT_FROM)[number];

export interface RaceSettings {
  strategy: string;
  units: number;
  requests: number;
  connections: number;
  workMs: number;
  ttlMs: number;
  fenced: boolean;
  /** one instance directly, or the three behind nginx */
  via: Via;
  /** One request (the race's first) stops its own instance at this point, healed after freezeMs. */
  freezeHolder?: { point: PausePoint; ms: number };
  /**
   * The hosts topology: the race's first request (to the first instance, working `workMs`) is cut
   * from `from` while it holds the lock, and the others start once the cut is in force. The cut
   * heals once that holder has answered, after `ms` at the latest.
   */
  cutHolder?: { from: CutFrom; workMs: number; ms: number };
  /**
   * The round trip (ms) the cluster's links add during this race: the lab retimes its delaying
   * forwarders before the race and sets them back after it, however it ends. Needs a cluster
   * brought up with links (`npm run live -- --rtt 2`).
   */
  rttMs?: number;
}

/** One lock hold, from an answer's Server-Timing: ms since the race began, on the monotonic clock. */
export interface Hold {
  lane: string;
  start: number;
  end: number;
  /** the fencing token, when the lock issues one */
  token?: string;
  status: number;
  /** the answer's error (503 fenced …) */
  error?: string;
}

export type FaultKind = 'freeze' | 'kill' | 'holder-freeze' | 'partition';

/**
 * A fault on a server: while `end` is absent it is still on. Times are ms since the race began (or
 * the page's epoch); a partition's are those its cut and its heal were recorded at.
 */
export interface FaultMark {
  id: number;
  kind: FaultKind;
  target: string;
  start: number;
  end?: number;
  /** when it heals by itself, at the latest */
  healBy: number;
  /** a partition: the instance lanes it cuts off, and the servers they are cut from */
  cut?: { lanes: string[]; from: string[] };
}

/** Each store's stock as last read straight from it; a store not read (absent, or failing) is left out. */
export type StockReading = Partial<Record<StoreKind, number>>;

/** Counts so far in a race. */
export interface Tally {
  answered: number;
  sold: number;
  soldOut: number;
  /** 503s by the answer's error */
  refused: Record<string, number>;
  /** other statuses and transport errors, by status or 'no_answer' */
  other: Record<string, number>;
}

/** One update of a race, sent about ten times a second. */
export interface Frame {
  /** ms since the race began */
  t: number;
  tally: Tally;
  /** units sold (200) in this frame's interval */
  goodput: number;
  stock: StockReading;
  /** the holds answered since the last frame */
  holds: Hold[];
  faults: FaultMark[];
}

export interface RaceSummary {
  settings: RaceSettings;
  /** the strategy's own store (its first), where `left` is read */
  store: StoreKind;
  tally: Tally;
  /** initial − left, read from the store */
  deducted: number;
  left: number;
  /** units sold (200s) − units deducted */
  oversold: number;
  /** holds that overlapped another on the same lock */
  overlaps: number;
  seconds: number;
  /** units sold per second over the race */
  goodput: number;
}

/** A run's event log: everything the page drew, to replay or export. */
export interface RunLog {
  id: string;
  startedAt: string;
  lanes: string[];
  settings: RaceSettings;
  frames: Frame[];
  summary?: RaceSummary;
}

export interface StrategyInfo {
  name: string;
  family: string;
  /** the course section's label and the description, in each language (GET /strategies asked once per language) */
  course: Bilingual;
  description: Bilingual;
  expected: { oneInstance: string; threeInstances: string; workOverTtl?: string; note?: string };
  /** the stores it works on, its own (where a race counts) first */
  stores: StoreKind[];
  fencing?: string;
  /** the pause points of this strategy's own steps, beyond after-acquire and before-write */
  pausePoints?: string[];
}

/** What GET /api/state tells a page that just opened. */
export interface LabState {
  lanes: string[];
  topology: 'single' | 'replicated';
  /** hosts: a network namespace per server, so the page may cut links; loopback: none can be cut */
  network: 'hosts' | 'loopback';
  racing: boolean;
  faults: FaultMark[];
  redlock: string[];
  zookeeper: string;
  limits: { maxRequests: number; maxSeconds: number; maxFaultMs: number };
  /** The round trip (ms) the cluster's links add now, from its record; null: no forwarders (loopback), none can be delayed. */
  rttMs: number | null;
}

/** Server-sent events: `frame` during a race, `done` at its end, `faults` when faults change outside a race. */
export type LiveEvent =
  | { type: 'start'; run: Pick<RunLog, 'id' | 'lanes' | 'settings' | 'startedAt'> }
  | { type: 'frame'; frame: Frame }
  | { type: 'done'; summary: RaceSummary }
  | { type: 'failed'; message: string }
  | { type: 'faults'; faults: FaultMark[] }
  /** The links were retimed (a race's rttMs, and back after it). */
  | { type: 'rtt'; rttMs: number };
