// The configuration of each part (an instance, its stores, its limits, the live page) from the
// environment as src/env.ts parses it.
import { ConfigError, parseEnv, type Env } from './env.js';

export interface MysqlConfig {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  poolSize: number;
  connectTimeoutMs: number;
  /** MYSQL_STATEMENT_TIMEOUT_MS; absent: MYSQL_STATEMENT_TIMEOUT_MS_DEFAULT. */
  statementTimeoutMs?: number;
}

/** Where and as whom an instance reaches PostgreSQL. */
export interface PostgresConfig {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  poolSize: number;
  /** PG_STATEMENT_TIMEOUT_MS; absent: PG_STATEMENT_TIMEOUT_MS_DEFAULT. */
  statementTimeoutMs?: number;
  /** PG_CONNECT_TIMEOUT_MS; absent: PG_CONNECT_TIMEOUT_MS_DEFAULT. */
  connectTimeoutMs?: number;
}

export interface RequestLimits {
  workMsMax: number;
  ttlMsDefault: number;
  ttlMsMax: number;
  waitMsDefault: number;
  waitMsMax: number;
  retryMsDefault: number;
  retryMsMax: number;
}

export interface ServerLimits {
  maxConnections: number;
  backlog: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

export interface HostPort {
  host: string;
  port: number;
}

/** The main Redis found through Sentinel: its master's name and the Sentinels to ask. */
export interface SentinelConfig {
  masterName: string;
  sentinels: HostPort[];
}

export interface ServiceConfig {
  host: string;
  port: number;
  instanceId: string;
  defaultStrategy: string;
  logLevel: Env['LOG_LEVEL'];
  startupTimeoutMs: number;
  /** Whether GET /check/lock accepts `pause` (the fault lab). */
  faultInjection: boolean;
  maxInFlight: number;
  /** Node's server limits (server.maxConnections, headersTimeout, requestTimeout, keepAliveTimeout). */
  server: ServerLimits;
  drainMs: number;
  mysql: MysqlConfig;
  redis: { url: string; commandTimeoutMs: number; sentinel?: SentinelConfig };
  redlock: { urls: string[] };
  zookeeper: { connect: string; sessionTimeoutMs: number };
  postgres: PostgresConfig;
  etcd: { endpoints: string[] };
  limits: RequestLimits;
}

/** A Redis URL (on loopback unless a host is given), with the cluster's password when it has one. */
export function redisUrl(port: number, password: string | undefined, host = '127.0.0.1'): string {
  return password ? `redis://:${encodeURIComponent(password)}@${host}:${port}` : `redis://${host}:${port}`;
}

export function hostPort(at: HostPort): string {
  return `${at.host}:${at.port}`;
}

function serverLimitsOf(e: Env): ServerLimits {
  // Node requires it: the headers' bound cannot outlast the whole request's.
  if (e.HEADERS_TIMEOUT_MS > e.REQUEST_TIMEOUT_MS) {
    throw new ConfigError(`invalid environment: HEADERS_TIMEOUT_MS (${e.HEADERS_TIMEOUT_MS}) must not exceed REQUEST_TIMEOUT_MS (${e.REQUEST_TIMEOUT_MS})`);
  }
  return {
    maxConnections: e.MAX_CONNECTIONS,
    backlog: e.LISTEN_BACKLOG,
    headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
  };
}

export function loadServiceConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const e = parseEnv(env);
  return {
    host: e.HOST,
    port: e.PORT,
    instanceId: e.INSTANCE_ID ?? `app-${e.PORT}`,
    defaultStrategy: e.DEFAULT_STRATEGY,
    logLevel: e.LOG_LEVEL,
    startupTimeoutMs: e.STARTUP_TIMEOUT_MS,
    faultInjection: e.FAULT_INJECTION === '1',
    maxInFlight: e.MAX_IN_FLIGHT,
    server: serverLimitsOf(e),
    drainMs: e.DRAIN_MS,
    mysql: {
      host: e.MYSQL_HOST,
      port: e.MYSQL_PORT,
      user: e.MYSQL_USER,
      password: e.MYSQL_PASSWORD,
      database: e.MYSQL_DATABASE,
      poolSize: e.MYSQL_POOL_SIZE,
      connectTimeoutMs: e.MYSQL_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: e.MYSQL_STATEMENT_TIMEOUT_MS,
    },
    redis: {
      url: e.REDIS_URL,
      commandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
      ...(e.REDIS_SENTINELS && { sentinel: { masterName: e.REDIS_SENTINEL_MASTER, sentinels: e.REDIS_SENTINELS } }),
    },
    redlock: { urls: e.REDLOCK_URLS },
    zookeeper: { connect: e.ZK_CONNECT, sessionTimeoutMs: e.ZK_SESSION_TIMEOUT_MS },
    postgres: {
      host: e.PG_HOST,
      port: e.PG_PORT,
      user: e.PG_USER,
      password: e.PG_PASSWORD,
      database: e.PG_DATABASE,
      poolSize: e.PG_POOL_SIZE,
      statementTimeoutMs: e.PG_STATEMENT_TIMEOUT_MS,
      connectTimeoutMs: e.PG_CONNECT_TIMEOUT_MS,
    },
    etcd: { endpoints: e.ETCD_ENDPOINTS },
    limits: {
      workMsMax: e.WORK_MS_MAX,
      ttlMsDefault: e.TTL_MS_DEFAULT,
      ttlMsMax: e.TTL_MS_MAX,
      waitMsDefault: e.WAIT_MS_DEFAULT,
      waitMsMax: e.WAIT_MS_MAX,
      retryMsDefault: e.RETRY_MS_DEFAULT,
      retryMsMax: e.RETRY_MS_MAX,
    },
  };
}

export interface LiveConfig {
  host: string;
  port: number;
  maxRequests: number;
  maxSeconds: number;
}

export function loadLiveConfig(env: NodeJS.ProcessEnv = process.env): LiveConfig {
  const e = parseEnv(env);
  return { host: e.LIVE_HOST, port: e.LIVE_PORT, maxRequests: e.LIVE_MAX_REQUESTS, maxSeconds: e.LIVE_MAX_SECONDS };
}
