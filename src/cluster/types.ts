// The cluster's public shapes; cluster.ts re-exports them.
import type { ClusterConfig } from '../config.js';
import type { ProcessIdentity } from './processes.js';

export interface ServerHandle {
  /** 'mysql' | 'redis' | 'redlock-0'.. | 'zookeeper' | 'nginx' | 'app-8000' ... */
  readonly name: string;
  readonly port: number;
  /** undefined while stopped */
  readonly pid: number | undefined;
  /** graceful: SIGTERM, wait (bounded), then SIGKILL; resolves when the port is free */
  stop(): Promise<void>;
  /** SIGKILL, like a crash; resolves when the process is gone */
  kill(): Promise<void>;
  /** start again with the same data dir and port; resolves when healthy */
  start(): Promise<void>;
}

/** Also what <dir>/cluster.json holds (plus the servers' pids). */
export interface ClusterInfo {
  dir: string;
  nginx: string;
  instances: string[];
  mysql: { host: string; port: number; user: string; password: string; database: string };
  redis: string;
  redlock: string[];
  zookeeper: string;
}

export interface ClusterServers {
  mysql: ServerHandle;
  redis: ServerHandle;
  redlock: ServerHandle[];
  zookeeper: ServerHandle;
  nginx: ServerHandle;
  instances: ServerHandle[];
}

export interface RunningCluster {
  info: ClusterInfo;
  servers: ClusterServers;
  /** stops everything it started: the front (nginx, apps) first, then the data servers */
  stop(): Promise<void>;
}

export interface StartClusterOptions {
  config: ClusterConfig;
  /** extra env for every app instance (e.g. LOG_LEVEL, DEFAULT_STRATEGY) */
  instanceEnv?: Record<string, string>;
  /** CLI 'up': children survive this process (own process group, logs to files, unref) */
  detached?: boolean;
  log?: (line: string) => void;
  /** called as each server process is spawned (the CLI records pids before waiting on health) */
  onSpawn?: (event: { name: string; port: number; identity: ProcessIdentity }) => void;
}
