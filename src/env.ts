// Every environment variable stocklab reads, parsed and validated here and nowhere else (config.ts
// turns the parsed values into each part's configuration). Defaults match the native cluster
// (`npm run cluster -- up`), whose server ports stay clear of the system services a Debian package
// may have started (3306, 6379, 2181).
import { z } from 'zod';

const port = z.coerce.number().int().min(1).max(65535);
const portList = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)
      .map(Number),
  )
  .pipe(z.array(z.number().int().min(1).max(65535)).min(1));
const hostPortList = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^[^:\s]+:\d{1,5}$/, 'host:port')).min(1))
  .transform((list) => list.map((h) => ({ host: h.slice(0, h.lastIndexOf(':')), port: Number(h.slice(h.lastIndexOf(':') + 1)) })));
const urlList = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().url()).min(1));

/** MYSQL_STATEMENT_TIMEOUT_MS's default, also for a MysqlConfig made without it (tests, migrations). */
export const MYSQL_STATEMENT_TIMEOUT_MS_DEFAULT = 10_000;
/** IDLE_TRANSACTION_TIMEOUT_S's default, also for a ClusterConfig made without it (tests). */
export const IDLE_TRANSACTION_TIMEOUT_S_DEFAULT = 30;
/** PG_CONNECT_TIMEOUT_MS's default, also for a PostgresConfig made without it (tests, migrations). */
export const PG_CONNECT_TIMEOUT_MS_DEFAULT = 5_000;
/** PG_STATEMENT_TIMEOUT_MS's default, also for a PostgresConfig made without it (tests, migrations). */
export const PG_STATEMENT_TIMEOUT_MS_DEFAULT = 10_000;

const envSchema = z.object({
  // one service instance
  HOST: z.string().default('127.0.0.1'),
  PORT: port.default(8000),
  INSTANCE_ID: z.string().min(1).optional(),
  DEFAULT_STRATEGY: z.string().min(1).default('none'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  STARTUP_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
  // The fault lab's pause points (GET /check/lock?pause=…): a request may stop this process. Off
  // unless asked for; `npm run faults` turns it on for the cluster it starts.
  FAULT_INJECTION: z.enum(['0', '1']).default('0'),

  // MySQL (MariaDB natively, MySQL 8 in docker compose)
  MYSQL_HOST: z.string().default('127.0.0.1'),
  MYSQL_PORT: port.default(13306),
  MYSQL_USER: z.string().default('stocklab'),
  MYSQL_PASSWORD: z.string().default('stocklab'),
  MYSQL_DATABASE: z.string().default('stocklab'),
  MYSQL_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(20),
  MYSQL_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).default(2_000),
  // How long one statement may go unanswered before the instance gives it up and destroys its
  // connection (a link that drops packets sends no RST: TCP would wait minutes). It is on top of
  // the row-lock wait a request allows (sql-for-update's read and sql-share-mode's write may wait
  // waitMs, in whole seconds), so a request on a dead link answers within its waitMs + workMs + this
  // at most: 503 outcome_unknown if a COMMIT or an autocommit write went unanswered, else a refusal.
  // 10 s by default, as WORK_MS_MAX: a write queued behind a sql-for-update holder still at its
  // work waits that long for the row lock, and is not given up on (and the fault lab's longest
  // MySQL freeze, 8 s, stays below it).
  MYSQL_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).default(MYSQL_STATEMENT_TIMEOUT_MS_DEFAULT),

  // Redis: the main server holds the Redis stock key and the single-server locks;
  // RedLock uses its own independent masters.
  REDIS_URL: z.string().url().default('redis://127.0.0.1:16379'),
  REDLOCK_URLS: urlList.default([16380, 16381, 16382, 16383, 16384].map((p) => `redis://127.0.0.1:${p}`)),
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(100).default(3_000),
  // Optional: the native cluster's Redis servers then require it (requirepass), and the URLs it
  // writes for the instances, the bench and the tests carry it. Unset: no password, as in the course.
  REDIS_PASSWORD: z.string().optional(),
  // Set: the main Redis is found through these Sentinels (host:port,...) under REDIS_SENTINEL_MASTER,
  // and followed through a failover; REDIS_URL then gives only the password. Unset: REDIS_URL is used.
  REDIS_SENTINELS: hostPortList.optional(),
  REDIS_SENTINEL_MASTER: z.string().min(1).default('stocklab'),

  // PostgreSQL: a second copy of the stock (store=postgres) and the advisory locks that guard it.
  PG_HOST: z.string().default('127.0.0.1'),
  PG_PORT: port.default(15432),
  PG_USER: z.string().default('stocklab'),
  PG_PASSWORD: z.string().default('stocklab'),
  PG_DATABASE: z.string().default('stocklab'),
  PG_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(20),
  // How long a new connection may take to open before PostgreSQL counts as unreachable (503
  // postgres_unavailable). Each opens a backend by fork: 45–70 ms on an idle 2-core VM, over 1.5 s
  // under load with a handful opening at once, so 2 s called a healthy server down in CI's races.
  PG_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).default(PG_CONNECT_TIMEOUT_MS_DEFAULT),
  // MYSQL_STATEMENT_TIMEOUT_MS's twin: one statement on a pooled connection unanswered this long is
  // given up on and its connection closed, never reused (a partition sends no RST). A statement that
  // waits for a lock under lock_timeout = waitMs (FOR UPDATE, the advisory locks) gets waitMs on top.
  // 10 s, as MySQL's: a write queued behind a pg-for-update holder at its work (WORK_MS_MAX) is not
  // given up on.
  PG_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).default(PG_STATEMENT_TIMEOUT_MS_DEFAULT),

  // etcd: the lock service under Kubernetes (its concurrency recipes, written here, and the etcd3 package's).
  ETCD_ENDPOINTS: urlList.default(['http://127.0.0.1:12379']),

  // ZooKeeper
  ZK_CONNECT: z.string().default('127.0.0.1:12181'),
  ZK_SESSION_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(6_000),

  // Deductions in flight per instance before a fast 503 busy: far above the course's 100 clients,
  // and as many as nginx admits in all (its capacity, 3,000), so through nginx an instance is never
  // past it: nginx, in front, is the layer that refuses. The cap guards an instance asked directly.
  MAX_IN_FLIGHT: z.coerce.number().int().min(1).default(3_000),
  // Node's own server limits, all looser than nginx's so nginx is the layer that says no: sockets
  // beyond MAX_CONNECTIONS are closed unanswered (nginx holds at most its capacity plus its idle
  // keep-alive pools to an instance); connections not yet accepted wait in a queue of
  // LISTEN_BACKLOG (the kernel caps it at net.core.somaxconn; Node's 511 made nginx's connects
  // time out under a burst); a request's headers, and the whole request, must arrive within these
  // (nginx cuts a slow client at 10 s, and sends an instance whole requests); an idle keep-alive
  // socket is kept longer than nginx keeps its own (4 s), so nginx closes it first.
  MAX_CONNECTIONS: z.coerce.number().int().min(1).default(8_192),
  LISTEN_BACKLOG: z.coerce.number().int().min(1).default(4_096),
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(20_000),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(30_000),
  KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(65_000),
  // On SIGTERM: how long running deductions get to finish before they are aborted (below the
  // native cluster's 10 s grace before SIGKILL).
  DRAIN_MS: z.coerce.number().int().min(0).default(5_000),

  // Bounds on per-request parameters (GET /check/lock)
  WORK_MS_MAX: z.coerce.number().int().min(0).default(10_000),
  TTL_MS_DEFAULT: z.coerce.number().int().min(1).default(30_000),
  TTL_MS_MAX: z.coerce.number().int().min(1).default(600_000),
  WAIT_MS_DEFAULT: z.coerce.number().int().min(0).default(10_000),
  WAIT_MS_MAX: z.coerce.number().int().min(0).default(60_000),
  RETRY_MS_DEFAULT: z.coerce.number().int().min(1).default(20),
  RETRY_MS_MAX: z.coerce.number().int().min(1).default(5_000),

  // The native cluster (src/cluster): where its data lives and which ports it uses.
  STOCKLAB_DIR: z.string().default('.stocklab'),
  NGINX_PORT: port.default(8080),
  // Requests in flight nginx admits before answering 503 busy itself; unset: nginx/nginx.conf's
  // `limit_conn` (3,000). Lower it to watch nginx refuse at a smaller load.
  NGINX_CAPACITY: z.coerce.number().int().min(1).optional(),
  INSTANCE_PORTS: portList.default([8000, 8100, 8200]),
  REDIS_PORT: port.default(16379),
  REDLOCK_PORTS: portList.default([16380, 16381, 16382, 16383, 16384]),
  ZK_PORT: port.default(12181),
  ETCD_PORT: port.default(12379),
  // etcd's port for its peers: a single member has none, but etcd listens on one all the same.
  ETCD_PEER_PORT: port.default(12380),
  // TOPOLOGY=replicated (or `npm run cluster -- up --topology replicated`) adds a Redis replica with
  // three Sentinels, and makes ZooKeeper a three-node ensemble (ZK_PORT is its first node).
  // hosts: every server in a network namespace of its own on a private bridge (root only), so
  // links between them can be cut; hosts,replicated is both.
  TOPOLOGY: z.enum(['single', 'replicated', 'hosts', 'hosts,replicated']).default('single'),
  REDIS_REPLICA_PORT: port.default(16385),
  SENTINEL_PORTS: portList.pipe(z.array(z.number()).length(3)).default([16386, 16387, 16388]),
  ZK_ENSEMBLE_PORTS: portList.pipe(z.array(z.number()).length(2)).default([12182, 12183]),
  // Each ensemble node's quorum and election ports, node by node.
  ZK_PEER_PORTS: portList.pipe(z.array(z.number()).length(3)).default([12888, 12889, 12890]),
  ZK_ELECTION_PORTS: portList.pipe(z.array(z.number()).length(3)).default([13888, 13889, 13890]),
  // Replicated, etcd is three members: ETCD_PORT and ETCD_PEER_PORT are the first one's.
  ETCD_ENSEMBLE_PORTS: portList.pipe(z.array(z.number()).length(2)).default([12381, 12382]),
  ETCD_ENSEMBLE_PEER_PORTS: portList.pipe(z.array(z.number()).length(2)).default([12391, 12392]),
  // The RedLock masters: fsync = every write appended and fsync'd (appendfsync always), so a master
  // restarts with its locks; and a restart held back this long after a stop or a crash (Kleppmann's
  // "delayed restart": longer than the longest lease, and a restarted master grants nobody twice).
  REDLOCK_PERSISTENCE: z.enum(['none', 'fsync']).default('none'),
  REDLOCK_RESTART_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(0),
  // The native MariaDB and PostgreSQL end a session idle inside a transaction this long, rolling it
  // back: what frees the row lock of an instance cut off mid-transaction (a partition sends no FIN).
  // Longer than any healthy holder's idle time there (workMs ≤ 10 s, the fault lab's pauses ≤ 8 s).
  IDLE_TRANSACTION_TIMEOUT_S: z.coerce.number().int().min(1).max(3_600).default(IDLE_TRANSACTION_TIMEOUT_S_DEFAULT),
  // The round trip, in ms, that every link of the native cluster adds (`npm run cluster -- up --rtt 2`):
  // a delaying forwarder in front of each server, half of it each way. 0: no forwarders at all.
  CLUSTER_RTT_MS: z.coerce.number().min(0).max(1_000).default(0),

  // The live lab (`npm run live`): its page's port on 127.0.0.1, and the bounds on one race.
  LIVE_PORT: port.default(8090),
  /** The live lab's listen address: loopback; 0.0.0.0 only inside a container (compose publishes it on 127.0.0.1). */
  LIVE_HOST: z.string().default('127.0.0.1'),
  LIVE_MAX_REQUESTS: z.coerce.number().int().min(1).default(5_000),
  LIVE_MAX_SECONDS: z.coerce.number().int().min(1).max(300).default(60),

  // `npm run mutation`: a folder of lua/*.lua stand-ins (each a copy with one guard broken), read
  // in place of the same-named scripts; unset, lua/ alone. Never set in service.
  LUA_OVERRIDE_DIR: z.string().min(1).optional(),

  // Where tests and the fault lab draw free loopback ports from (MIN-MAX, below Linux's ephemeral
  // 32768+). Two runs side by side (CI's pairs) are given halves, so neither takes a port the other
  // picked and has not bound yet.
  FREE_PORTS: z
    .string()
    .regex(/^\d+-\d+$/, 'FREE_PORTS is MIN-MAX, such as 20000-32000')
    .transform((r) => r.split('-').map(Number) as [number, number])
    .refine(([min, max]) => min >= 1024 && max <= 65_535 && max - min >= 1_000, 'FREE_PORTS must span at least 1000 ports within 1024-65535')
    .default([20_000, 32_000]),
});

export type Env = z.infer<typeof envSchema>;

/** The name of every environment variable stocklab reads. */
export const ENV_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

export class ConfigError extends Error {}

/** The environment, parsed and validated: every variable's value or its default. */
export function parseEnv(env: NodeJS.ProcessEnv): Env {
  // An empty variable means "not set", so `FOO= npm start` falls back to the default.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`invalid environment: ${problems}`);
  }
  return parsed.data;
}

/** The folder whose scripts replace lua/'s same-named ones (mutation testing), if any. */
export function luaOverrideDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  // Only its own variable: loading a script must not depend on the rest of the environment.
  return envSchema.pick({ LUA_OVERRIDE_DIR: true }).parse({ LUA_OVERRIDE_DIR: env.LUA_OVERRIDE_DIR || undefined }).LUA_OVERRIDE_DIR;
}

/** The range free loopback ports are drawn from (FREE_PORTS). */
export function freePortRange(env: NodeJS.ProcessEnv = process.env): { min: number; max: number } {
  const [min, max] = envSchema.pick({ FREE_PORTS: true }).parse({ FREE_PORTS: env.FREE_PORTS || undefined }).FREE_PORTS;
  return { min, max };
}
