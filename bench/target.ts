// Where the bench fires and where it reads units left: flags first, then the environment, then the
// native cluster's record (.stocklab/cluster.json), then the defaults the native cluster uses.
import { loadServiceConfig } from '../src/config.js';
import { loadClusterConfig } from '../src/cluster/layout.js';
import { resolveDir } from '../src/cluster/cluster.js';
import { infoOf, readState } from '../src/cluster/state.js';
import type { ClusterInfo } from '../src/cluster/types.js';
import type { BenchOptions } from './options.js';
import type { StoreAddresses } from '../src/cluster/stores.js';

export interface BenchTarget {
  /** The three instances behind nginx (or whatever front --target names). */
  three: string;
  /** One instance directly; undefined when none is known, and the one-instance runs are skipped. */
  one: string | undefined;
  stores: StoreAddresses;
  /** The native cluster under test, when it is the recorded one: its servers count each sale's messages. */
  cluster?: ClusterInfo;
  /** Where the addresses came from, for the report. */
  source: string;
}

export function recordedCluster(env: NodeJS.ProcessEnv = process.env): ClusterInfo | undefined {
  const state = readState(resolveDir(loadClusterConfig(env).dir));
  return state && infoOf(state);
}

/** mysql://… or postgres://…: the same fields, the port defaulting to the server's own. */
function sqlFromUrl(raw: string, defaultPort: number): StoreAddresses['mysql'] {
  const u = new URL(raw);
  return {
    host: u.hostname,
    port: Number(u.port || defaultPort),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: u.pathname.replace(/^\//, ''),
  };
}

const MYSQL_ENV = ['MYSQL_HOST', 'MYSQL_PORT', 'MYSQL_USER', 'MYSQL_PASSWORD', 'MYSQL_DATABASE'];

export function resolveTarget(opts: BenchOptions, env: NodeJS.ProcessEnv, recorded: ClusterInfo | undefined): BenchTarget {
  const three = opts.target ?? recorded?.nginx;
  if (!three) {
    throw new Error('no cluster to bench: start one with `npm run cluster -- up` (or `npm run lab`), or pass --target URL');
  }
  // The recorded cluster is the one under test only when the target is its nginx (or not given).
  const same = recorded !== undefined && (!opts.target || sameOrigin(opts.target, recorded.nginx));
  const one = opts.instance ?? (same ? recorded.instances[0] : undefined);

  const fromEnv = loadServiceConfig(env); // env values over the native defaults
  const envHasMysql = MYSQL_ENV.some((k) => env[k]);
  const mysql = opts.mysql
    ? sqlFromUrl(opts.mysql, 3306)
    : !envHasMysql && recorded
      ? recorded.mysql
      : { host: fromEnv.mysql.host, port: fromEnv.mysql.port, user: fromEnv.mysql.user, password: fromEnv.mysql.password, database: fromEnv.mysql.database };
  const redis = opts.redis ?? (!env.REDIS_URL && recorded ? recorded.redis : fromEnv.redis.url);
  // A cluster whose links are delayed (npm run cluster -- up --rtt, or a sweep) says so in the report.
  const delayed = same && recorded.links ? `, its links delayed by a round trip of ${recorded.rttMs ?? 0} ms` : '';
  const source = opts.target && !same ? '--target' : `the native cluster (.stocklab/cluster.json)${delayed}`;
  // PostgreSQL from --postgres or the record; without either, a store=postgres row is refused by unitsLeft.
  const postgres = opts.postgres ? sqlFromUrl(opts.postgres, 5432) : same ? recorded.postgres : undefined;
  return { three, one, stores: { mysql, redis, ...(postgres && { postgres }) }, ...(same && { cluster: recorded }), source };
}

function sameOrigin(a: string, b: string): boolean {
  const norm = (u: string) => {
    const x = new URL(u);
    const host = x.hostname === 'localhost' ? '127.0.0.1' : x.hostname;
    return `${x.protocol}//${host}:${x.port}`;
  };
  return norm(a) === norm(b);
}
