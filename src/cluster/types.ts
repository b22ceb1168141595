// The cluster's public shapes; cluster.ts re-exports them.
import { z } from 'zod';
import type { ClusterConfig, RedlockMastersConfig } from './layout.js';
import type { HostsLayout } from '../net/hosts.js';
import type { ProcessIdentity } from './processes.js';

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
  /** PostgreSQL (optional: a record written before it joined the cluster has none). */
  postgres: z.object({ host: z.string(), port: z.number(), user: z.string(), password: z.string(), database: z.string() }).optional(),
  /** etcd's client URL (optional, as postgres). */
  etcd: z.string().optional(),
  /** The replicated topology's Sentinels (host:port), which name the main Redis's master. */
  sentinels: z.array(z.string()).optional(),
  /** The hosts topology: each server's namespace and address (nginx is also published on 127.0.0.1). */
  hosts: z.array(z.object({ name: z.string(), namespace: z.string(), address: z.string(), veth: z.string() })).optional(),
  /** The hosts topology's bridge: its id, name, subnet and the machine's address on it. */
  network: z.object({ id: z.string(), bridge: z.string(), subnet: z.string(), gateway: z.string() }).optional(),
  /** The round trip (ms) the links add, as the cluster was brought up or last retimed; 0: no forwarders. */
  rttMs: z.number().optional(),
  /**
   * With a round trip: each delaying forwarder, what it fronts (a server, or a ZooKeeper node's
   * quorum port), the server's own address and the forwarder's, and its own round trip when it was
   * retimed apart. The addresses above are the forwarders' (what a client is given); absent at rtt 0.
   */
  links: z.array(z.object({ name: z.string(), server: z.string(), forwarder: z.string(), rttMs: z.number().optional() })).optional(),
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
  /** The one etcd member, or the first of three. */
  etcd: ServerHandle;
  /** Every etcd member: [etcd], or the three of the replicated topology. */
  etcdEnsemble: ServerHandle[];
  postgres: ServerHandle;
  nginx: ServerHandle;
  /** The hosts topology: what publishes nginx (in its namespace) on 127.0.0.1. */
  nginxPublish?: ServerHandle;
  instances: ServerHandle[];
  /** With a round trip: the delaying forwarders (`link-mysql`…), in front of every server but nginx; else none. */
  links: ServerHandle[];
}

export interface RunningCluster {
  info: ClusterInfo;
  servers: ClusterServers;
  /** The RedLock masters' persistence and restart delay; a lab may change them between restarts. */
  redlockMasters: RedlockMastersConfig;
  /** The hosts topology's namespaces and addresses (partition.ts cuts its links). */
  layout?: HostsLayout;
  /**
   * Changes the round trip its forwarders add (info follows): every link's, or only those in front
   * of the named servers (`['redlock-4']`: one master far away). Throws when it was started at rtt
   * 0, without forwarders, or for a name with no link.
   */
  setRtt(ms: number, links?: readonly string[]): Promise<void>;
  /** stops everything it started: the front (nginx, apps) first, then the data servers */
  stop(): Promise<void>;
}

export interface SpawnEvent {
  name: string;
  port: number;
  host: string;
  identity: ProcessIdentity;
}

/** How a server is supervised (server.ts's ManagedServer). */
export interface ServerOptions {
  /** CLI 'up': children survive this process (own process group, logs to files, unref) */
  detached?: boolean;
  log?: (line: string) => void;
  /** called right after each spawn, before the health wait, so a record of the pid can outlive us (`up`) */
  onSpawn?: (event: SpawnEvent) => void;
}

/** detached, log and onSpawn go to every server (see ServerOptions). */
export interface StartClusterOptions extends ServerOptions {
  config: ClusterConfig;
  /** extra env for every app instance (e.g. LOG_LEVEL, DEFAULT_STRATEGY) */
  instanceEnv?: Record<string, string>;
}
