// The lab's two topologies in Kubernetes terms: the same ClusterConfig the native cluster starts
// from (loadClusterConfig), with every server on its container's standard port and at the DNS name
// its Service gives it. serviceEnvFor then writes the instances' environment exactly as it does for
// the native cluster, so the two cannot disagree on a variable's name or shape.
import { loadClusterConfig, type ClusterConfig } from '../cluster/layout.js';
import type { HostsLayout } from '../net/hosts.js';

export type Overlay = 'single' | 'replicated';
export const OVERLAYS: readonly Overlay[] = ['single', 'replicated'];

/** The standard port of each server's image: what its container listens on. */
export const PORTS = {
  app: 8000,
  nginx: 8080,
  mysql: 3306,
  redis: 6379,
  sentinel: 26379,
  zookeeper: 2181,
  zookeeperPeer: 2888,
  zookeeperElection: 3888,
  etcd: 2379,
  etcdPeer: 2380,
  postgres: 5432,
} as const;

/** RedLock's five masters: one StatefulSet of independent servers (no replication between them). */
export const REDLOCK_MASTERS = 5;
/** Nodes of the replicated topology's ZooKeeper ensemble, members of its etcd, its Sentinels. */
export const ENSEMBLE = 3;

/**
 * A server of the native cluster (its name there) as a pod: the StatefulSet it belongs to and its
 * ordinal. The native names count from the first server unsuffixed ('zookeeper', 'zookeeper-1'),
 * RedLock's and the Sentinels' from 0 ('redlock-0'); a pod's ordinal is the same count.
 */
export function podOf(nativeName: string): { statefulSet: string; ordinal: number } {
  const m = /^(.*?)(?:-(\d+))?$/.exec(nativeName);
  const set = m?.[1] ?? nativeName;
  return { statefulSet: set, ordinal: m?.[2] === undefined ? 0 : Number(m[2]) };
}

/** The pod's own DNS name through its StatefulSet's headless Service: `zookeeper-1.zookeeper`. */
export function podHost(nativeName: string): string {
  const { statefulSet, ordinal } = podOf(nativeName);
  return `${statefulSet}-${ordinal}.${statefulSet}`;
}

/** Servers clients reach through one Service (the name alone); the others pod by pod. */
const BY_SERVICE = new Set(['mysql', 'postgres', 'redis']);

const repeat = (port: number, n: number): string => Array.from({ length: n }, () => String(port)).join(',');

/** The environment loadClusterConfig reads for a topology, every port the container's own. */
export function clusterEnv(overlay: Overlay): Record<string, string> {
  return {
    TOPOLOGY: overlay,
    NGINX_PORT: String(PORTS.nginx),
    INSTANCE_PORTS: String(PORTS.app),
    MYSQL_PORT: String(PORTS.mysql),
    REDIS_PORT: String(PORTS.redis),
    REDLOCK_PORTS: repeat(PORTS.redis, REDLOCK_MASTERS),
    ZK_PORT: String(PORTS.zookeeper),
    ETCD_PORT: String(PORTS.etcd),
    ETCD_PEER_PORT: String(PORTS.etcdPeer),
    PG_PORT: String(PORTS.postgres),
    REDIS_REPLICA_PORT: String(PORTS.redis),
    SENTINEL_PORTS: repeat(PORTS.sentinel, ENSEMBLE),
    ZK_ENSEMBLE_PORTS: repeat(PORTS.zookeeper, ENSEMBLE - 1),
    ZK_PEER_PORTS: repeat(PORTS.zookeeperPeer, ENSEMBLE),
    ZK_ELECTION_PORTS: repeat(PORTS.zookeeperElection, ENSEMBLE),
    ETCD_ENSEMBLE_PORTS: repeat(PORTS.etcd, ENSEMBLE - 1),
    ETCD_ENSEMBLE_PEER_PORTS: repeat(PORTS.etcdPeer, ENSEMBLE - 1),
  };
}

/** Every server name the native cluster gives, for a topology (the instances aside). */
function serverNames(cluster: ClusterConfig): string[] {
  const single = !cluster.replicated;
  return [
    'mysql',
    'postgres',
    'redis',
    ...Array.from({ length: REDLOCK_MASTERS }, (_v, i) => `redlock-${i}`),
    ...(single ? ['zookeeper', 'etcd'] : ['zookeeper', 'zookeeper-1', 'zookeeper-2', 'etcd', 'etcd-1', 'etcd-2', 'sentinel-0', 'sentinel-1', 'sentinel-2']),
  ];
}

/**
 * The native cluster's config for a topology, with a hosts layout whose addresses are DNS names:
 * serverAddress (and so serviceEnvFor) then names each server as Kubernetes resolves it. A single
 * ZooKeeper or etcd is still a pod of a StatefulSet, reached as such.
 */
export function kubernetesCluster(overlay: Overlay): ClusterConfig {
  const cluster = loadClusterConfig(clusterEnv(overlay));
  const hosts: HostsLayout = {
    id: 'k8s',
    bridge: 'none',
    subnet: 'none',
    gateway: 'none',
    hosts: serverNames(cluster).map((name) => ({ name, namespace: name, address: BY_SERVICE.has(name) ? name : podHost(name), veth: 'none' })),
  };
  return { ...cluster, hosts };
}
