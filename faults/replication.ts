// The lab's hands on the replicated topology: which server Sentinel names as master, replication
// held back on purpose, and ZooKeeper's leader. Each step waits until its effect is observed.
import { httpGet } from '../src/cluster/probes.js';
import { Redis } from 'ioredis';
import { SENTINEL_MASTER_NAME } from '../src/cluster/layout.js';
import type { RunningCluster, ServerHandle } from '../src/cluster/cluster.js';
import { zkMode } from '../src/cluster/probes.js';
import { pollUntil } from '../src/time.js';
import { freezeRedis } from './redis-inspect.js';

/** The address of the cluster's server on `port` (ports are unique in a cluster): loopback, or its own in the hosts topology. */
export function hostOfPort(cluster: RunningCluster, port: number): string {
  const s = cluster.servers;
  const all = [s.mysql, s.redis, ...(s.redisReplica ? [s.redisReplica] : []), ...s.sentinels, ...s.redlock, ...s.zookeeperEnsemble, ...s.instances, s.nginx];
  return all.find((x) => x.port === port)?.host ?? '127.0.0.1';
}

/** A plain client of the lab's on one Redis port (the cluster's password, if any); fails fast. */
export async function redisAt(cluster: RunningCluster, port: number): Promise<Redis> {
  const password = new URL(cluster.info.redis).password;
  const client = new Redis({
    port,
    host: hostOfPort(cluster, port),
    ...(password && { password: decodeURIComponent(password) }),
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    lazyConnect: true,
    commandTimeout: 5_000,
  });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** The main Redis's master and replica now, as the Sentinels say (a failover swaps them). */
export async function redisRoles(cluster: RunningCluster): Promise<{ master: ServerHandle; replica: ServerHandle }> {
  const { redis, redisReplica } = cluster.servers;
  if (!redisReplica) throw new Error('this cluster is not replicated (TOPOLOGY=replicated)');
  const port = await sentinelMasterPort(cluster);
  if (port === redis.port) return { master: redis, replica: redisReplica };
  if (port === redisReplica.port) return { master: redisReplica, replica: redis };
  throw new Error(`the Sentinels name port ${port} as master, neither of the cluster's Redis servers`);
}

/** The master's port as the first Sentinel that answers names it. */
export async function sentinelMasterPort(cluster: RunningCluster): Promise<number | undefined> {
  for (const s of cluster.servers.sentinels) {
    const client = await redisAt(cluster, s.port).catch(() => undefined);
    if (!client) continue;
    try {
      const addr = (await client.call('SENTINEL', 'get-master-addr-by-name', SENTINEL_MASTER_NAME)) as [string, string] | null;
      if (addr) return Number(addr[1]);
    } catch {
      // ask the next one
    } finally {
      client.disconnect();
    }
  }
  return undefined;
}

/** The master's port and flags (s_down, o_down, failover_in_progress …) as the first Sentinel that answers has them. */
export async function sentinelMasterState(cluster: RunningCluster): Promise<{ port: number; flags: string[] } | undefined> {
  for (const s of cluster.servers.sentinels) {
    const client = await redisAt(cluster, s.port).catch(() => undefined);
    if (!client) continue;
    try {
      const fields = (await client.call('SENTINEL', 'master', SENTINEL_MASTER_NAME)) as string[];
      const field = (name: string) => fields[fields.indexOf(name) + 1] ?? '';
      return { port: Number(field('port')), flags: field('flags').split(',') };
    } catch {
      // ask the next one
    } finally {
      client.disconnect();
    }
  }
  return undefined;
}

/** Every Sentinel's view of the master (its port and flags), in the cluster's order; undefined for one that did not answer. */
export async function sentinelMasterViews(cluster: RunningCluster): Promise<({ port: number; flags: string[] } | undefined)[]> {
  return Promise.all(
    cluster.servers.sentinels.map(async (s) => {
      const client = await redisAt(cluster, s.port).catch(() => undefined);
      if (!client) return undefined;
      try {
        const fields = (await client.call('SENTINEL', 'master', SENTINEL_MASTER_NAME)) as string[];
        const field = (name: string) => fields[fields.indexOf(name) + 1] ?? '';
        return { port: Number(field('port')), flags: field('flags').split(',') };
      } catch {
        return undefined;
      } finally {
        client.disconnect();
      }
    }),
  );
}

/** Waits until every Sentinel names `port` as the master; false after timeoutMs. */
export async function waitPromoted(cluster: RunningCluster, port: number, timeoutMs: number): Promise<boolean> {
  return pollUntil(async () => (await sentinelMasterPort(cluster)) === port, timeoutMs, 50);
}

/** Waits until the server on `port` is a replica whose link to its master is up; false after timeoutMs. */
export async function waitReplicaInSync(cluster: RunningCluster, port: number, timeoutMs: number): Promise<boolean> {
  return pollUntil(
    async () => {
      const client = await redisAt(cluster, port).catch(() => undefined);
      if (!client) return false;
      try {
        const info = await client.info('replication');
        return /role:slave/.test(info) && /master_link_status:up/.test(info) && !/master_sync_in_progress:1/.test(info);
      } catch {
        return false;
      } finally {
        client.disconnect();
      }
    },
    timeoutMs,
    100,
  );
}

/** A server's replication fields that say why it is not (yet) a replica in sync, for a failure's details. */
export async function replicationState(cluster: RunningCluster, port: number): Promise<string> {
  const client = await redisAt(cluster, port).catch((err: unknown) => err as Error);
  if (client instanceof Error) return `unreachable: ${client.message}`;
  try {
    const info = await client.info('replication');
    const wanted =
      /^(role|master_host|master_port|master_link_status|master_sync_in_progress|master_link_down_since_seconds|master_sync_total_bytes|master_sync_read_bytes):/;
    return info
      .split(/\r?\n/)
      .filter((l) => wanted.test(l))
      .join(' ');
  } catch (err) {
    return `no INFO: ${err instanceof Error ? err.message : String(err)}`;
  } finally {
    client.disconnect();
  }
}

/**
 * Bytes the master has not yet handed to its replica's socket (CLIENT LIST omem). Redis sends its
 * replication stream in order, so while this is above 0, the newest writes have not left the master.
 */
export async function unsentToReplica(master: Redis): Promise<number> {
  const list = (await master.call('CLIENT', 'LIST', 'TYPE', 'replica')) as string;
  return list.split('\n').reduce((n, line) => n + Number(/ omem=(\d+)/.exec(line)?.[1] ?? 0), 0);
}

/** Larger than every kernel buffer between two loopback sockets (a few MB), far below the replica's output limit (64 MB). */
const FILLER_BYTES = 24 * 1024 * 1024;
const FILLER_KEY = 'lab:replication-filler';

/**
 * Holds replication back: the replica is frozen (SIGSTOP), and a large write fills the socket
 * buffers between them, so whatever the master applies next stays in the master's own memory until
 * the replica reads again. A master killed now takes those writes with it. (A frozen replica alone
 * would not do: the kernel would still take the next writes into its socket, to be read on resume.)
 */
export async function holdReplicationBack(master: Redis, replicaPid: number): Promise<void> {
  await freezeRedis(replicaPid);
  await master.set(FILLER_KEY, 'x'.repeat(FILLER_BYTES));
  if (!(await pollUntil(async () => (await unsentToReplica(master)) > 0, 5_000, 20)))
    throw new Error('replication was not held back: the master sent its whole stream');
}

/** The ZooKeeper ensemble's leader now, `except` aside; undefined while there is none (an election). */
export async function zkLeader(cluster: RunningCluster, except?: ServerHandle): Promise<ServerHandle | undefined> {
  const nodes = cluster.servers.zookeeperEnsemble.filter((s) => s !== except);
  const modes = await Promise.all(nodes.map(async (s) => ((await zkMode({ host: s.host, port: s.port })) === 'leader' ? s : undefined)));
  return modes.find((s) => s !== undefined);
}

/**
 * The etcd member that leads now (its /metrics says etcd_server_is_leader 1), other than `except`;
 * undefined while none does. Asked at the member's own address, not through a forwarder.
 */
export async function etcdLeader(cluster: RunningCluster, except?: ServerHandle): Promise<ServerHandle | undefined> {
  const members = cluster.servers.etcdEnsemble.filter((s) => s !== except);
  const leading = await Promise.all(
    members.map(async (s) => {
      const reply = await httpGet(`http://${s.host}:${s.port}/metrics`, 1_000);
      return reply?.status === 200 && /^etcd_server_is_leader 1$/m.test(reply.body) ? s : undefined;
    }),
  );
  return leading.find((s) => s !== undefined);
}

/** The cluster's store addresses with the main Redis at the master Sentinel names now (unchanged when not replicated). */
export async function currentStoreAddresses(cluster: RunningCluster): Promise<Pick<RunningCluster['info'], 'mysql' | 'redis' | 'postgres'>> {
  const { mysql, redis, postgres } = cluster.info;
  if (!cluster.servers.redisReplica) return { mysql, redis, postgres };
  const port = await sentinelMasterPort(cluster);
  if (port === undefined) throw new Error('no Sentinel names a master');
  const url = new URL(redis);
  url.hostname = hostOfPort(cluster, port);
  url.port = String(port);
  return { mysql, redis: url.toString(), postgres };
}

/**
 * Makes the server on `port` the replica of `masterPort` (a restarted old master comes back empty and
 * a master: Sentinel would demote it at its next check, the lab does it at once) and waits until it is
 * in sync; false after timeoutMs.
 */
export async function rejoinAsReplicaOf(cluster: RunningCluster, port: number, masterPort: number, timeoutMs: number): Promise<boolean> {
  const client = await redisAt(cluster, port);
  try {
    await client.call('REPLICAOF', hostOfPort(cluster, masterPort), String(masterPort));
  } finally {
    client.disconnect();
  }
  return waitReplicaInSync(cluster, port, timeoutMs);
}

/** The master's replication stream as `master` has it: its own offset and each replica's acknowledged one (INFO replication). */
async function replicaOffsets(master: Redis): Promise<{ own: number; replicas: number[] }> {
  const info = await master.info('replication');
  const own = Number(/^master_repl_offset:(\d+)/m.exec(info)?.[1] ?? NaN);
  const replicas = [...info.matchAll(/^slave\d+:.*\boffset=(\d+)/gm)].map((m) => Number(m[1]));
  return { own, replicas };
}

/**
 * Waits until every replica of `master` has acknowledged the master's whole stream (so both hold
 * the same data, the fence counter included); false after timeoutMs. Replicas acknowledge once a second.
 */
export async function waitReplicasCaughtUp(master: Redis, timeoutMs: number): Promise<boolean> {
  return pollUntil(
    async () => {
      const { own, replicas } = await replicaOffsets(master);
      return replicas.length > 0 && replicas.every((o) => o === own);
    },
    timeoutMs,
    50,
  );
}

/** Waits until the server on `port` lists a client connected from `address` (CLIENT LIST); false after timeoutMs. */
export async function waitClientFrom(cluster: RunningCluster, port: number, address: string, timeoutMs: number): Promise<boolean> {
  const client = await redisAt(cluster, port);
  try {
    return await pollUntil(async () => ((await client.call('CLIENT', 'LIST')) as string).includes(` addr=${address}:`), timeoutMs, 50);
  } finally {
    client.disconnect();
  }
}

/**
 * Waits until the server on `port` is the replica of the one on `masterPort`, its link up and in
 * sync (what Sentinel makes of an old master that comes back); false after timeoutMs.
 */
export async function waitReplicaOf(cluster: RunningCluster, port: number, masterPort: number, timeoutMs: number): Promise<boolean> {
  return pollUntil(
    async () => {
      const client = await redisAt(cluster, port).catch(() => undefined);
      if (!client) return false;
      try {
        const info = await client.info('replication');
        return (
          /role:slave/.test(info) &&
          new RegExp(`^master_port:${masterPort}\\b`, 'm').test(info) &&
          /master_link_status:up/.test(info) &&
          !/master_sync_in_progress:1/.test(info)
        );
      } catch {
        return false;
      } finally {
        client.disconnect();
      }
    },
    timeoutMs,
    100,
  );
}
