// The cluster's layout: its servers' ports, the topology's additions (the replicated servers, the
// hosts topology's addresses, the delaying links), where a client reaches each server, and the
// environment an instance is given to reach them all. Parsed from the environment by src/config.ts.
import { hostPort, redisUrl, type HostPort, type MysqlConfig, type PostgresConfig } from '../config.js';
import { parseEnv } from '../env.js';
import type { HostsLayout } from '../net/hosts.js';

export interface ClusterPorts {
  nginx: number;
  instances: number[];
  mysql: number;
  redis: number;
  redlock: number[];
  zookeeper: number;
  etcd: number;
  etcdPeer: number;
  postgres: number;
}

/** One ZooKeeper ensemble node's ports. */
export interface ZkNodePorts {
  client: number;
  peer: number;
  election: number;
}

/** What the replicated topology adds (TOPOLOGY=replicated). */
export interface ReplicatedPorts {
  redisReplica: number;
  sentinels: number[];
  /** The ensemble, node by node; the first node's client port is ClusterPorts.zookeeper. */
  zookeeper: ZkNodePorts[];
  /** etcd's three members, member by member; the first is ClusterPorts.etcd and etcdPeer. */
  etcd: EtcdMemberPorts[];
}

/** One etcd member's ports. */
export interface EtcdMemberPorts {
  client: number;
  peer: number;
}

export type RedlockPersistence = 'none' | 'fsync';

export interface RedlockMastersConfig {
  persistence: RedlockPersistence;
  restartDelayMs: number;
}

/** The name Sentinel knows the main Redis by, in the native cluster and in compose. */
export const SENTINEL_MASTER_NAME = 'stocklab';

export interface ClusterConfig {
  dir: string;
  ports: ClusterPorts;
  /** 'hosts' (TOPOLOGY=hosts…): each server in a network namespace of its own; absent: all on loopback. */
  network?: 'hosts';
  /** The hosts topology's namespaces and addresses, once chosen (src/net/hosts.ts). */
  hosts?: HostsLayout;
  /** Present for TOPOLOGY=replicated. */
  replicated?: ReplicatedPorts;
  redlockMasters: RedlockMastersConfig;
  mysql: Pick<MysqlConfig, 'user' | 'password' | 'database'>;
  postgres: Pick<PostgresConfig, 'user' | 'password' | 'database'>;
  /** requirepass of every Redis server of the cluster; undefined: none. */
  redisPassword?: string;
  /** Requests in flight nginx admits before its own 503 busy; undefined: the template's. */
  nginxCapacity?: number;
  /** The round trip every link adds, in ms (CLUSTER_RTT_MS); 0 or absent: no forwarders. */
  rttMs?: number;
  /** MariaDB's and PostgreSQL's idle-in-transaction bound, in s (IDLE_TRANSACTION_TIMEOUT_S); absent: its default. */
  idleTransactionSeconds?: number;
  /**
   * The delaying forwarders' ports, by what each fronts (a server's name, or a ZooKeeper node's
   * `-peer`/`-election` quorum port), once chosen (src/cluster/links.ts); each listens on the address
   * of the server it fronts. Clients are given these instead of the servers' own ports.
   */
  links?: Record<string, number>;
}

/** Where the server `name` listens: its own address in the hosts topology, else loopback. */
export function serverAddress(cluster: Pick<ClusterConfig, 'hosts'>, name: string): string {
  return cluster.hosts?.hosts.find((h) => h.name === name)?.address ?? '127.0.0.1';
}

/**
 * Where a client reaches the server (or quorum port) `name` listening on `port`: through its delaying
 * forwarder when the cluster has one (same address, the forwarder's port), else the server itself.
 */
export function reachAt(cluster: Pick<ClusterConfig, 'hosts' | 'links'>, name: string, port: number): HostPort {
  const host = serverAddress(cluster, serverOfLink(name));
  return { host, port: cluster.links?.[name] ?? port };
}

/** The server a link's name belongs to: itself, or, for a quorum port's (`zookeeper-1-peer`), its ZooKeeper node. */
export function serverOfLink(name: string): string {
  return name.replace(/-(peer|election)$/, '');
}

/** The URL a client reaches the Redis server `name` (port `port`) at: reachAt's address, the cluster's password. */
export function redisUrlAt(cluster: Pick<ClusterConfig, 'hosts' | 'links' | 'redisPassword'>, name: string, port: number): string {
  const at = reachAt(cluster, name, port);
  return redisUrl(at.port, cluster.redisPassword, at.host);
}

/** The ZooKeeper server names of a cluster, node by node: 'zookeeper', then 'zookeeper-1'… */
export function zookeeperNames(cluster: Pick<ClusterConfig, 'replicated'>): string[] {
  return cluster.replicated ? cluster.replicated.zookeeper.map((_n, i) => (i === 0 ? 'zookeeper' : `zookeeper-${i}`)) : ['zookeeper'];
}

export function loadClusterConfig(env: NodeJS.ProcessEnv = process.env): ClusterConfig {
  const e = parseEnv(env);
  return {
    dir: e.STOCKLAB_DIR,
    ports: {
      nginx: e.NGINX_PORT,
      instances: e.INSTANCE_PORTS,
      mysql: e.MYSQL_PORT,
      redis: e.REDIS_PORT,
      redlock: e.REDLOCK_PORTS,
      zookeeper: e.ZK_PORT,
      etcd: e.ETCD_PORT,
      etcdPeer: e.ETCD_PEER_PORT,
      postgres: e.PG_PORT,
    },
    ...(e.TOPOLOGY.startsWith('hosts') && { network: 'hosts' as const }),
    ...(e.TOPOLOGY.endsWith('replicated') && {
      replicated: {
        redisReplica: e.REDIS_REPLICA_PORT,
        sentinels: e.SENTINEL_PORTS,
        zookeeper: [e.ZK_PORT, ...e.ZK_ENSEMBLE_PORTS].map((client, i) => ({ client, peer: e.ZK_PEER_PORTS[i] ?? 0, election: e.ZK_ELECTION_PORTS[i] ?? 0 })),
        etcd: [e.ETCD_PORT, ...e.ETCD_ENSEMBLE_PORTS].map((client, i) => ({ client, peer: [e.ETCD_PEER_PORT, ...e.ETCD_ENSEMBLE_PEER_PORTS][i] ?? 0 })),
      },
    }),
    redlockMasters: { persistence: e.REDLOCK_PERSISTENCE, restartDelayMs: e.REDLOCK_RESTART_DELAY_MS },
    mysql: { user: e.MYSQL_USER, password: e.MYSQL_PASSWORD, database: e.MYSQL_DATABASE },
    postgres: { user: e.PG_USER, password: e.PG_PASSWORD, database: e.PG_DATABASE },
    ...(e.REDIS_PASSWORD && { redisPassword: e.REDIS_PASSWORD }),
    ...(e.NGINX_CAPACITY !== undefined && { nginxCapacity: e.NGINX_CAPACITY }),
    rttMs: e.CLUSTER_RTT_MS,
    idleTransactionSeconds: e.IDLE_TRANSACTION_TIMEOUT_S,
  };
}

/** ZooKeeper's connect string for a cluster: its one server, or every node of the ensemble (through their forwarders, if any). */
export function zkConnectOf(cluster: Pick<ClusterConfig, 'ports' | 'replicated' | 'hosts' | 'links'>): string {
  const ports = cluster.replicated ? cluster.replicated.zookeeper.map((n) => n.client) : [cluster.ports.zookeeper];
  const names = zookeeperNames(cluster);
  return ports.map((p, i) => hostPort(reachAt(cluster, names[i] as string, p))).join(',');
}

/** The etcd member names of a cluster: 'etcd', then, replicated, 'etcd-1' and 'etcd-2'. */
export function etcdNames(cluster: Pick<ClusterConfig, 'replicated'>): string[] {
  return cluster.replicated ? cluster.replicated.etcd.map((_m, i) => (i === 0 ? 'etcd' : `etcd-${i}`)) : ['etcd'];
}

/** Each etcd member's ports, member by member (one, or three when replicated). */
export function etcdMembers(cluster: Pick<ClusterConfig, 'ports' | 'replicated'>): EtcdMemberPorts[] {
  return cluster.replicated ? cluster.replicated.etcd : [{ client: cluster.ports.etcd, peer: cluster.ports.etcdPeer }];
}

/** etcd's client URLs for a cluster, comma-separated (through their forwarders, if any). */
export function etcdEndpointsOf(cluster: Pick<ClusterConfig, 'ports' | 'replicated' | 'hosts' | 'links'>): string {
  const names = etcdNames(cluster);
  return etcdMembers(cluster)
    .map((m, i) => `http://${hostPort(reachAt(cluster, names[i] as string, m.client))}`)
    .join(',');
}

/** The environment an instance needs to reach a cluster's servers (through their forwarders, if any): the inverse of loadServiceConfig. */
export function serviceEnvFor(cluster: ClusterConfig, instancePort: number): Record<string, string> {
  const p = cluster.ports;
  const mysql = reachAt(cluster, 'mysql', p.mysql);
  const postgres = reachAt(cluster, 'postgres', p.postgres);
  return {
    PORT: String(instancePort),
    INSTANCE_ID: `app-${instancePort}`,
    MYSQL_HOST: mysql.host,
    MYSQL_PORT: String(mysql.port),
    MYSQL_USER: cluster.mysql.user,
    MYSQL_PASSWORD: cluster.mysql.password,
    MYSQL_DATABASE: cluster.mysql.database,
    REDIS_URL: redisUrlAt(cluster, 'redis', p.redis),
    REDLOCK_URLS: p.redlock.map((r, i) => redisUrlAt(cluster, `redlock-${i}`, r)).join(','),
    ZK_CONNECT: zkConnectOf(cluster),
    PG_HOST: postgres.host,
    PG_PORT: String(postgres.port),
    PG_USER: cluster.postgres.user,
    PG_PASSWORD: cluster.postgres.password,
    PG_DATABASE: cluster.postgres.database,
    ETCD_ENDPOINTS: etcdEndpointsOf(cluster),
    ...(cluster.replicated && {
      REDIS_SENTINELS: cluster.replicated.sentinels.map((port, i) => hostPort(reachAt(cluster, `sentinel-${i}`, port))).join(','),
      REDIS_SENTINEL_MASTER: SENTINEL_MASTER_NAME,
    }),
  };
}
