// `npm run bench` options: parsed and checked here, so the rest of the bench gets plain values.
import { HELP_FLAG, LANG_FLAG, langOption, parseFlags, UsageError } from '../src/cli/args.js';
import { INITIAL_COUNT } from '../src/stock/product.js';
import { BENCH_DEFAULTS, MIN_RACE_UNITS, SELL_OUT_AT, SOLD_OUT_MAX_SECONDS, type BenchOptions } from '../report/bench/run-options.js';

export { MIN_RACE_UNITS, SELL_OUT_AT, SOLD_OUT_MAX_SECONDS, type BenchOptions };

/** The ramp's default steps, from the course's 100 clients to the 10,000 the lab claims. */
export const RAMP_STEPS = [100, 500, 1000, 2000, 3000, 4000, 6000, 8000, 10000];
/** The ramp's strategies when --strategies is not given. */
export const RAMP_STRATEGIES = ['sql-update', 'redis-pubsub'];

/**
 * What the bench and the lab run by default: the course's line, one strategy for each step of its
 * main text (docs/course.md), in its order. `--all` adds the rest: the course's flawed variants of a
 * step (share mode, SETNX then EXPIRE, GETSET, GET then DEL, the herd), Redisson's and Curator's
 * other locks, the Lua decrement, the basic lock table and the libraries.
 */
export const COURSE_LINE = [
  'none',
  'mutex',
  'sql-update',
  'sql-for-update',
  'sql-optimistic',
  'redis-watch',
  'redis-setnx',
  'redis-setnx-ex',
  'redis-owned',
  'redis-reentrant',
  'redis-watchdog',
  'redis-pubsub',
  'redlock',
  'redlock+line',
  'zk-ephemeral',
  'zk-sequential',
  'zk-watch',
  'zk-watch+line',
  'zk-reentrant',
  'zk-reentrant+line',
  'mysql-lock-table',
];

/** The names a bench runs: --strategies, else every one with --all, else the course's line. */
export function chosenStrategies(o: Pick<BenchOptions, 'strategies' | 'all' | 'families'>): string[] | undefined {
  return o.strategies ?? (o.all || o.families ? undefined : COURSE_LINE);
}

/** The course's headline rows keep its full-size race: the problem and the first answer to it. */
export const COURSE_STRATEGIES = ['none', 'mutex'];

export const USAGE = `usage: npm run bench -- [options]
  --strategies a,b     only these (default: the course's line, ${COURSE_LINE.length} strategies, one per step of its
                       main text; see docs/bench.md)
  --all                every strategy GET /strategies lists: the course's line and its variants,
                       Redisson's and Curator's other locks, etcd and PostgreSQL, the libraries
  --family a,b         every strategy of these families (GET /strategies' family: sql, redis,
                       redlock, zookeeper, mysql-lock, etcd, postgres, library…)
  --rounds N           throughput windows per strategy, interleaved across strategies (default 3)
  --warmup S --window S   discarded warm-up and measured window, seconds (default ${BENCH_DEFAULTS.warmupSeconds} and ${BENCH_DEFAULTS.windowSeconds})
  --connections N      concurrent clients (default 100)
  --workMs N           business time inside the critical section (default 0)
  --ttlMs N --waitMs N lock parameters (default: the service's)
                       Each strategy's last window is also its race: its stock is sized from the goodput
                       of the rounds before to run out ${SELL_OUT_AT} of the way through the measured span (${MIN_RACE_UNITS} units
                       at least), the load goes on until a 409 sold_out, and the store is counted; the
                       course's ${COURSE_STRATEGIES.join(' and ')} keep a full-size race apart, as does a lock too slow to sell
                       out within ${SOLD_OUT_MAX_SECONDS} s
  --separate-races     race each strategy apart after the windows instead, sized as --raceSeconds says
  --raceSeconds S      race each strategy apart, sized from its goodput to last about S s, from ${MIN_RACE_UNITS}
                       up to 1000 units, 100 more requests than units (default 1.5)
  --requests N --initial N   a fixed race instead: N requests against N units, for every strategy
  --full               race every strategy at the course's size (${INITIAL_COUNT + 100} requests, ${INITIAL_COUNT} units),
                       not only ${COURSE_STRATEGIES.join(' and ')}
  --maxSeconds N       stop a race after N s and mark it truncated (default 60)
  --target URL         front of a running cluster (default: nginx of .stocklab/cluster.json)
  --instance URL       one instance of it for the one-instance runs (skipped without one)
  --mysql URL --redis URL   the stores, to read units left (default: env, then cluster.json)
  --postgres URL       PostgreSQL, for the store=postgres rows (default: cluster.json's)
  --out DIR            results folder (default bench/results)
  --lang en|zh         the table's headings and closing lines in English or Chinese (default en)
  --ramp               the overload ramp instead: at each step N clients through nginx send 2N
                       requests for N units (--strategies default ${RAMP_STRATEGIES.join(',')}); see docs/bench.md
  --steps a,b,...      the ramp's steps in clients (default ${RAMP_STEPS.join(',')})
  --rtt a,b,...        the round-trip sweep instead: the strategies through nginx at each round trip (ms),
                       on the native cluster with a delaying forwarder in front of every server (brought
                       up so if need be, then retimed), with k, the bound 1/(k·r) and the fraction of it
  --help               this text
Flags take their value as --flag value or --flag=value, in any order.`;

export { UsageError };

export function count(name: string, raw: string | undefined, fallback: number | undefined, min: number): number | undefined {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be a whole number ≥ ${min}, got "${raw}"`);
  return n;
}

function seconds(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new UsageError(`--${name} must be a number of seconds ≥ ${min}, got "${raw}"`);
  return n;
}

function url(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    return new URL(raw).toString().replace(/\/$/, '');
  } catch {
    throw new UsageError(`--${name} must be a URL, got "${raw}"`);
  }
}

const str = { type: 'string' } as const;

/** Every flag `npm run bench` (and `npm run lab`) accepts, as node:util's parseArgs takes them. */
export const BENCH_FLAGS = {
  strategies: str,
  all: { type: 'boolean' },
  family: str,
  rounds: str,
  warmup: str,
  window: str,
  connections: str,
  workMs: str,
  ttlMs: str,
  waitMs: str,
  requests: str,
  initial: str,
  raceSeconds: str,
  full: { type: 'boolean' },
  'separate-races': { type: 'boolean' },
  maxSeconds: str,
  target: str,
  instance: str,
  mysql: str,
  redis: str,
  postgres: str,
  out: str,
  ...LANG_FLAG,
  ramp: { type: 'boolean' },
  steps: str,
  rtt: str,
  ...HELP_FLAG,
} as const;

/** `npm run round-trips`' flags: which strategies, and how many sales each count is taken over. */
export const ROUND_TRIPS_FLAGS = { strategies: { type: 'string' }, requests: { type: 'string', default: '200' } } as const;

/** `npm run lab` takes the bench's flags and these. */
export const LAB_FLAGS = { stop: { type: 'boolean' } } as const;

export const LAB_USAGE = `${USAGE.replace('npm run bench', 'npm run lab')}
  --stop               (lab only) stop the cluster when done`;

type BenchValues = ReturnType<typeof parseFlags<typeof BENCH_FLAGS>>['values'];

export function parseBenchArgs(argv: readonly string[]): BenchOptions {
  return benchOptionsOf(parseFlags(argv, BENCH_FLAGS).values);
}

/** The bench's options from parsed flags (the lab's add their own beside them). */
export function benchOptionsOf(values: BenchValues): BenchOptions {
  const strategies = values.strategies
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (strategies && strategies.length === 0) throw new UsageError('--strategies needs at least one name');
  if (strategies && values.all) throw new UsageError('--strategies and --all go apart: --all runs every strategy');
  const families = values.family
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (families && families.length === 0) throw new UsageError('--family needs at least one name');
  if (families && (strategies || values.all)) throw new UsageError('--family goes apart from --strategies and --all');
  const full = values.full ?? false;
  const initial = count('initial', values.initial, full ? INITIAL_COUNT : 1000, 0) as number;
  const requests = count('requests', values.requests, initial + 100, 1) as number;
  const fixedRaces = full || values.initial !== undefined || values.requests !== undefined;
  const rounds = count('rounds', values.rounds, BENCH_DEFAULTS.rounds, 1) as number;
  return {
    rounds,
    warmupSeconds: seconds('warmup', values.warmup, BENCH_DEFAULTS.warmupSeconds, 0),
    windowSeconds: seconds('window', values.window, BENCH_DEFAULTS.windowSeconds, 0.1),
    connections: count('connections', values.connections, BENCH_DEFAULTS.connections, 1) as number,
    workMs: count('workMs', values.workMs, BENCH_DEFAULTS.workMs, 0) as number,
    ttlMs: count('ttlMs', values.ttlMs, undefined, 1),
    waitMs: count('waitMs', values.waitMs, undefined, 0),
    requests,
    initial,
    raceSeconds: fixedRaces ? undefined : seconds('raceSeconds', values.raceSeconds, BENCH_DEFAULTS.raceSeconds, 0.1),
    // the last window is sized from the rounds before it, so there must be one
    soldOutWindows: !fixedRaces && rounds > 1 && !(values['separate-races'] ?? false) && values.raceSeconds === undefined,
    courseRequests: INITIAL_COUNT + 100,
    courseInitial: INITIAL_COUNT,
    // Explicit race sizes apply to every strategy.
    courseStrategies: values.initial !== undefined || values.requests !== undefined ? [] : COURSE_STRATEGIES,
    maxSeconds: count('maxSeconds', values.maxSeconds, BENCH_DEFAULTS.maxSeconds, 1) as number,
    strategies,
    all: values.all ?? false,
    ...(families && { families }),
    target: url('target', values.target),
    instance: url('instance', values.instance),
    mysql: url('mysql', values.mysql),
    redis: url('redis', values.redis),
    postgres: url('postgres', values.postgres),
    out: values.out ?? 'bench/results',
    lang: langOption(values.lang),
    ramp: values.ramp ?? false,
    steps: stepsOf(values.steps),
    ...(values.rtt !== undefined && { rtts: rttsOf(values.rtt, values.ramp ?? false, values.target) }),
  };
}

function rttsOf(raw: string, ramp: boolean, target: string | undefined): number[] {
  if (ramp) throw new UsageError('--rtt and --ramp go apart');
  if (target !== undefined) throw new UsageError('--rtt runs on the native cluster, whose links it delays; not on --target');
  const rtts = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const ms = Number(s);
      if (!Number.isFinite(ms) || ms < 0 || ms > 1_000) throw new UsageError(`--rtt takes round trips in ms from 0 to 1000, got "${s}"`);
      return ms;
    });
  if (!rtts.some((ms) => ms > 0)) throw new UsageError('--rtt needs at least one round trip above 0 (e.g. --rtt 0,2)');
  return [...new Set(rtts)].sort((a, b) => a - b);
}

function stepsOf(raw: string | undefined): number[] {
  if (raw === undefined) return RAMP_STEPS;
  const steps = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => count('steps', s, undefined, 1) as number);
  if (steps.length === 0) throw new UsageError('--steps needs at least one number of clients');
  return [...new Set(steps)].sort((a, b) => a - b);
}
