// What a bench run was asked for, as its report keeps it: the options' shape, their defaults (the
// docs name only the flags a run changed) and the race sizing its method paragraph quotes.
import type { Lang } from '../../src/lang.js';

export interface BenchOptions {
  /** Rounds of throughput windows; every strategy is measured once per round, interleaved. */
  rounds: number;
  /** Discarded load before each measured window, in seconds. */
  warmupSeconds: number;
  /** Measured span of each throughput window, in seconds. */
  windowSeconds: number;
  connections: number;
  /** Simulated business time inside the critical section, per request. */
  workMs: number;
  /** Lock parameters passed through to GET /check/lock when given (the service's defaults otherwise). */
  ttlMs?: number;
  waitMs?: number;
  /** The oversell race: requests against units (more requests than units). */
  requests: number;
  initial: number;
  /**
   * When set, each race is sized from its strategy's measured goodput to last about this long
   * (between MIN_RACE_UNITS and `initial` units, with requests − initial extra requests); when
   * undefined, every race is `requests` for `initial`.
   */
  raceSeconds?: number;
  /**
   * Each cell's last window sells out and is its race (the course's full-size rows, and a lock too
   * slow to sell out in a window, are raced apart); false with --separate-races, fixed race sizes or one round.
   */
  soldOutWindows: boolean;
  /** The course's full-size race, for the headline strategies. */
  courseRequests: number;
  courseInitial: number;
  courseStrategies: string[];
  /** Upper bound on one race; a slower race is stopped and marked truncated. */
  maxSeconds: number;
  /** Subset of GET /strategies to run, in catalog order whatever order they are given in. */
  strategies?: string[];
  /** Without --strategies: every strategy (--all), else the course's line (COURSE_LINE). */
  all: boolean;
  /** `--family etcd,postgres`: every strategy of these families (GET /strategies' `family`). */
  families?: string[];
  /** nginx (or any front) of the cluster under test. */
  target?: string;
  /** One instance of that cluster, for the one-instance runs. */
  instance?: string;
  /** Store addresses: mysql://user:pass@host:port/db and redis://host:port. */
  mysql?: string;
  redis?: string;
  /** postgres://user:pass@host:port/db, for the store=postgres rows (the native cluster's from its record). */
  postgres?: string;
  /** Where <stamp>.json/.md/.html go. */
  out: string;
  /** The language of the markdown and the closing lines; the HTML report carries both. */
  lang: Lang;
  /** `--ramp`: step the clients through nginx instead of the comparison. */
  ramp: boolean;
  /** The ramp's steps: concurrent clients, ascending. */
  steps: number[];
  /** `--rtt`: the round trips (ms, ascending) to sweep the strategies over, on the native cluster's delayed links. */
  rtts?: number[];
}

/** The smallest sized race: still 100 concurrent clients against units that run out. */
export const MIN_RACE_UNITS = 100;
/** Where in the last window's measured span a sold-out window's stock should run out, at the goodput measured before. */
export const SELL_OUT_AT = 0.8;
/** A sold-out window whose stock would take longer than this to sell is raced apart instead (a lock too slow, or selling nothing). */
export const SOLD_OUT_MAX_SECONDS = 10;

/** The figures `npm run bench` takes when its flags do not say otherwise (bench/options.ts parses them). */
export const BENCH_DEFAULTS = {
  rounds: 3,
  // 0.3 s + 0.5 s measure what 0.5 s + 1.5 s did, cut from the same windows (docs/bench.md, "How
  // long a window is"): a median ratio of 0.99 over the lab's 42 rows, the rounds' range as at 0.3 s + 0.6 s (30 %).
  warmupSeconds: 0.3,
  windowSeconds: 0.5,
  connections: 100,
  workMs: 0,
  /** The service's own lock parameters. */
  ttlMs: undefined,
  waitMs: undefined,
  raceSeconds: 1.5,
  maxSeconds: 60,
} as const satisfies Partial<BenchOptions>;
