// The cluster's public shapes; cluster.ts re-exports them.
import { z } from 'zod';
import type { ClusterConfig, RedlockMastersConfig } from '../config.js';
import type { HostsLayout } from '../net/hosts.js';
import type { ServerOptions } from './server.js';

export interface ServerHandle {
  /** 'mysql' | 'redis' | 'redlock-0'.. | 'zookeeper' | 'nginx' | 'app-8000' ... */
  readonly name: string;
  readonly port: number;
  /** Its address: loopback, or its own in the hosts topology. */
  readonly host: string;
  /** undefined while stopped */
  readonly pid: number | undefined;
  /** graceful: SIGTERM, wait (bounded), then SIGKILL; resolves when the port is free */
  stop(): Promise<void>;
  /** SIGKILL, like a crash; resolves when the process is gone */
  kill(): Promise<void>;
  /** start again with the same data dir and port; resolves when healthy */
  start(): Promise<void>;
}

/** Where a cluster's servers answer; also what <dir>/cluster.json holds (plus the servers' pids). */
export const clusterInfoSchema = z.object({
  dir: z.string(),
  nginx: z.string(),
  instances: z.array(z.string()),
  mysql: z.object({ host: z.string(), port: z.number(), user: z.string(), password: z.string(), database: z.string() }),
  redis: z.string(),
  redlock: z.array(z.string()),
  /** host:port,host:port…: the one server, or every node of the ensemble */
  zookeeper: z.string(),
  /** The replicated topology's Sentinels (host:port), which name the main Redis's master. */
  sentinels: z.array(z.string()).optional(),
  /** The hosts topology: each server's namespace and address (nginx is also published on 127.0.0.1). */
  hosts: z.array(z.object({ name: z.string(), namespace: z.string(), address: z.string(), veth: z.string() })).optional(),
  /** The hosts topology's bridge: its id, name, subnet and the machine's address on it. */
  network: z.object({ id: z.string(), bridge: z.string(), subnet: z.string(), gateway: z.string() }).optional(),
});
export type ClusterInfo = z.infer<typeof clusterInfoSchema>;

export interface ClusterServers {
  mysql: ServerHandle;
  /** The main Redis; replicated, the master it starts as (a failover may change that). */
  redis: ServerHandle;
  /** Replicated only: the main Redis's replica. */
  redisReplica?: ServerHandle;
  /** Replicated only: three Sentinels. */
  sentinels: ServerHandle[];
  /** Their restarts wait out `RunningCluster.redlockMasters.restartDelayMs`. */
  redlock: ServerHandle[];
  /** The standalone server, or the ensemble's first node. */
  zookeeper: ServerHandle;
  /** Every ZooKeeper server: [zookeeper], or the three nodes of the ensemble. */
  zookeeperEnsemble: ServerHandle[];
  nginx: ServerHandle;
  /** The hosts topology: what publishes nginx (in its namespace) on 127.0.0.1. */
  nginxPublish?: ServerHandle;
  instances: ServerHandle[];
}

export interface RunningCluster {
  info: ClusterInfo;
  servers: ClusterServers;
  /** The RedLock masters' persistence and restart delay; a lab may change them between restarts. */
  redlockMasters: RedlockMastersConfig;
  /** The hosts topology's namespaces and addresses (partition.ts cuts its links). */
  layout?: HostsLayout;
  /** stops everything it started: the front (nginx, apps) first, then the data servers */
  stop(): Promise<void>;
}

/** detached, log and onSpawn go to every server (see ServerOptions). */
export interface StartClusterOptions extends ServerOptions {
  config: ClusterConfig;
  /** extra env for every app instance (e.g. LOG_LEVEL, DEFAULT_STRATEGY) */
  instanceEnv?: Record<string, string>;
}
