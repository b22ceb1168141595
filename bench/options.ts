// `npm run bench` options: parsed and checked here, so the rest of the bench gets plain values.
import { parseArgs } from 'node:util';
import { INITIAL_COUNT } from '../src/stock/product.js';

export interface BenchOptions {
  requests: number;
  connections: number;
  /** Simulated business time inside the critical section, per request. */
  workMs: number;
  /** Lock parameters passed through to GET /check/lock when given (the service's defaults otherwise). */
  ttlMs?: number;
  waitMs?: number;
  /** Upper bound on one strategy's run; a slower run is stopped and marked truncated. */
  maxSeconds: number;
  /** Units in stock at the start of every run (the course: 5000). */
  initial: number;
  /** Subset of GET /strategies to run, in catalog order whatever order they are given in. */
  strategies?: string[];
  /** nginx (or any front) of the cluster under test. */
  target?: string;
  /** One instance of that cluster, for the one-instance runs. */
  instance?: string;
  /** Store addresses: mysql://user:pass@host:port/db and redis://host:port. */
  mysql?: string;
  redis?: string;
  /** Where <stamp>.json/.md/.html go. */
  out: string;
}

export const USAGE = `usage: npm run bench -- [options]
  --strategies a,b     only these (default: every strategy GET /strategies lists)
  --requests N         requests per run (default 5000)
  --connections N      concurrent clients (default 100)
  --workMs N           business time inside the critical section (default 0)
  --ttlMs N --waitMs N lock parameters (default: the service's)
  --initial N          units in stock at the start of each run (default ${INITIAL_COUNT})
  --maxSeconds N       stop a run after N s and mark it truncated (default 60)
  --target URL         front of a running cluster (default: nginx of .stocklab/cluster.json)
  --instance URL       one instance of it for the one-instance runs (skipped without one)
  --mysql URL --redis URL   the stores, to read units left (default: env, then cluster.json)
  --out DIR            results folder (default bench/results)`;

export class UsageError extends Error {}

function count(name: string, raw: string | undefined, fallback: number | undefined, min: number): number | undefined {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be a whole number ≥ ${min}, got "${raw}"`);
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

export function parseBenchArgs(argv: string[]): BenchOptions {
  const str = { type: 'string' } as const;
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      strategies: str, requests: str, connections: str, workMs: str, ttlMs: str, waitMs: str,
      initial: str, maxSeconds: str, target: str, instance: str, mysql: str, redis: str, out: str,
    },
  });
  const strategies = values.strategies?.split(',').map((s) => s.trim()).filter(Boolean);
  if (strategies && strategies.length === 0) throw new UsageError('--strategies needs at least one name');
  return {
    requests: count('requests', values.requests, 5000, 1) as number,
    connections: count('connections', values.connections, 100, 1) as number,
    workMs: count('workMs', values.workMs, 0, 0) as number,
    ttlMs: count('ttlMs', values.ttlMs, undefined, 1),
    waitMs: count('waitMs', values.waitMs, undefined, 0),
    initial: count('initial', values.initial, INITIAL_COUNT, 0) as number,
    maxSeconds: count('maxSeconds', values.maxSeconds, 60, 1) as number,
    strategies,
    target: url('target', values.target),
    instance: url('instance', values.instance),
    mysql: url('mysql', values.mysql),
    redis: url('redis', values.redis),
    out: values.out ?? 'bench/results',
  };
}
