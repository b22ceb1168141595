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

/** The main Redis's master and its replica (a failover swaps them). */
export interface RedisRoles {
  master: ServerHandle;
  replica: ServerHandle;
}

/** The roles when the server on `masterPort` is the master; throws when it is neither of the cluster's Redis servers. */
function rolesWithMaster(cluster: RunningCluster, masterPort: number | undefined): RedisRoles {
  const { redis, redisReplica } = cluster.servers;
  if (!redisReplica) throw new Error('this cluster is not replicated (TOPOLOGY=replicated)');
  if (masterPort === redis.port) return { master: redis, replica: redisReplica };
  if (masterPort === redisReplica.port) return { master: redisReplica, replica: redis };
  throw new Error(`the Sentinels name port ${masterPort} as master, neither of the cluster's Redis servers`);
}

/** The main Redis's master and replica now, as the Sentinels say (a failover swaps them). */
export async function redisRoles(cluster: RunningCluster): Promise<RedisRoles> {
  if (!cluster.servers.redisReplica) throw new Error('this cluster is not replicated (TOPOLOGY=replicated)');
  return rolesWithMaster(cluster, await sentinelMasterPort(cluster));
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

/** A Sentinel's reply of field-value pairs (SENTINEL MASTER, each entry of SENTINEL REPLICAS) as a map. */
function sentinelFields(reply: unknown): Map<string, string> {
  const flat = Array.isArray(reply) ? reply.map(String) : [];
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i] as string, flat[i + 1] as string);
  return fields;
}

/** One Sentinel's view of the master (SENTINEL MASTER). */
export interface SentinelMasterView {
  host: string;
  port: number;
  /** master, and s_down, o_down, failover_in_progress, disconnected … while it has cause to. */
  flags: string[];
  /** Only while a failover is under way (with the flag failover_in_progress): wait_start, select_slave … */
  failoverState: string | undefined;
  /** The epoch of the configuration this Sentinel holds; the same at every Sentinel once a failover has spread. */
  configEpoch: number;
  /** How many other Sentinels of the master this one knows. */
  otherSentinels: number;
}

async function sentinelMasterView(client: Redis): Promise<SentinelMasterView> {
  const f = sentinelFields(await client.call('SENTINEL', 'master', SENTINEL_MASTER_NAME));
  return {
    host: f.get('ip') ?? '',
    port: Number(f.get('port')),
    flags: (f.get('flags') ?? '').split(','),
    failoverState: f.get('failover-state'),
    configEpoch: Number(f.get('config-epoch')),
    otherSentinels: Number(f.get('num-other-sentinels')),
  };
}

/** A replica as one Sentinel knows it (SENTINEL REPLICAS): its port and flags (slave, and s_down, disconnected … while it has cause to). */
interface SentinelReplicaView {
  port: number;
  flags: string[];
}

async function sentinelReplicaViews(client: Redis): Promise<SentinelReplicaView[]> {
  const reply = (await client.call('SENTINEL', 'replicas', SENTINEL_MASTER_NAME)) as unknown[];
  return reply.map((entry) => {
    const f = sentinelFields(entry);
    return { port: Number(f.get('port')), flags: (f.get('flags') ?? '').split(',') };
  });
}

/** `ask` run at every Sentinel at once, each on a fresh connection, in the cluster's order; undefined for one that did not answer. */
async function askEverySentinel<T>(cluster: RunningCluster, ask: (client: Redis) => Promise<T>): Promise<(T | undefined)[]> {
  return Promise.all(
    cluster.servers.sentinels.map(async (s) => {
      const client = await redisAt(cluster, s.port).catch(() => undefined);
      if (!client) return undefined;
      try {
        return await ask(client);
      } catch {
        return undefined;
      } finally {
        client.disconnect();
      }
    }),
  );
}

/** The master's port and flags (s_down, o_down, failover_in_progress …) as the first Sentinel that answers has them. */
export async function sentinelMasterState(cluster: RunningCluster): Promise<SentinelMasterView | undefined> {
  for (const s of cluster.servers.sentinels) {
    const client = await redisAt(cluster, s.port).catch(() => undefined);
    if (!client) continue;
    try {
      return await sentinelMasterView(client);
    } catch {
      // ask the next one
    } finally {
      client.disconnect();
    }
  }
  return undefined;
}

/** Every Sentinel's view of the master (its port and flags), in the cluster's order; undefined for one that did not answer. */
export function sentinelMasterViews(cluster: RunningCluster): Promise<(SentinelMasterView | undefined)[]> {
  return askEverySentinel(cluster, sentinelMasterView);
}

/** Flags of a Sentinel's master or replica that say it is not settled: seen down, unreachable, or in a failover. */
const UNSETTLED_FLAGS = new Set([
  's_down',
  'o_down',
  'disconnected',
  'failover_in_progress',
  'promoted',
  'reconf_sent',
  'reconf_inprog',
  'reconf_done',
  'force_failover',
]);
const unsettledFlags = (flags: readonly string[]) => flags.filter((f) => UNSETTLED_FLAGS.has(f));

/** INFO replication of a replica in sync: its link to its master (to `masterPort`, when given) up, no sync under way. */
function isReplicaInSync(info: string, masterPort?: number): boolean {
  return (
    /role:slave/.test(info) &&
    (masterPort === undefined || new RegExp(`^master_port:${masterPort}\\b`, 'm').test(info)) &&
    /master_link_status:up/.test(info) &&
    !/master_sync_in_progress:1/.test(info)
  );
}

/** The fields of INFO replication that say what a server is to replication, on one line. */
function replicationFields(info: string, wanted: RegExp): string {
  return info
    .split(/\r?\n/)
    .filter((l) => wanted.test(l))
    .join(' ');
}

/** The fields of a replica's INFO replication that say why it is not (yet) in sync. */
const REPLICA_FIELDS =
  /^(role|master_host|master_port|master_link_status|master_sync_in_progress|master_link_down_since_seconds|master_sync_total_bytes|master_sync_read_bytes):/;

/** INFO replication of the server on `port`; an Error ("unreachable: …" or "no INFO: …") when it cannot be read. */
async function replicationInfo(cluster: RunningCluster, port: number): Promise<string | Error> {
  const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
  const client = await redisAt(cluster, port).catch((err: unknown) => new Error(`unreachable: ${message(err)}`));
  if (client instanceof Error) return client;
  try {
    return await client.info('replication');
  } catch (err) {
    return new Error(`no INFO: ${message(err)}`);
  } finally {
    client.disconnect();
  }
}

/** The replicated Redis settled, with its roles, or what is not settled. */
export type Settle = { roles: RedisRoles } | { why: string };

/**
 * Whether the replicated Redis is settled now: every Sentinel answers and names the same master
 * address with the same config epoch, sees it up with no failover under way (no s_down, o_down,
 * failover_in_progress …), knows the other Sentinels, and lists the other server as a replica it
 * sees up; the master's INFO lists that replica online, and the replica's link to the master is up,
 * no sync under way. The roles when it is; otherwise what is not settled.
 */
export async function redisSettledNow(cluster: RunningCluster): Promise<Settle> {
  const sentinels = cluster.servers.sentinels;
  const views = await askEverySentinel(cluster, async (client) => ({ master: await sentinelMasterView(client), replicas: await sentinelReplicaViews(client) }));
  const silent = sentinels.filter((_, i) => views[i] === undefined).map((s) => s.name);
  if (silent.length > 0) return { why: `no answer to SENTINEL MASTER/REPLICAS from ${silent.join(', ')}` };
  const seen = views as { master: SentinelMasterView; replicas: SentinelReplicaView[] }[];
  const said = (v: SentinelMasterView) => `${v.host}:${v.port} (config epoch ${v.configEpoch})`;
  const first = (seen[0] as (typeof seen)[number]).master;
  if (seen.some((v) => v.master.host !== first.host || v.master.port !== first.port || v.master.configEpoch !== first.configEpoch))
    return { why: `the Sentinels name different masters: ${seen.map((v, i) => `${sentinels[i]?.name} ${said(v.master)}`).join(', ')}` };
  for (const [i, v] of seen.entries()) {
    const bad = unsettledFlags(v.master.flags);
    if (bad.length > 0 || v.master.failoverState !== undefined)
      return {
        why: `${sentinels[i]?.name} sees master ${said(v.master)} with flags ${v.master.flags.join(',')}${v.master.failoverState ? `, failover-state ${v.master.failoverState}` : ''}`,
      };
    if (!(v.master.otherSentinels >= sentinels.length - 1))
      return { why: `${sentinels[i]?.name} knows ${v.master.otherSentinels} other Sentinels, not ${sentinels.length - 1}` };
  }
  let roles: RedisRoles;
  try {
    roles = rolesWithMaster(cluster, first.port);
  } catch (err) {
    return { why: err instanceof Error ? err.message : String(err) };
  }
  const { master, replica } = roles;
  for (const [i, v] of seen.entries()) {
    const known = v.replicas.find((r) => r.port === replica.port);
    if (!known) return { why: `${sentinels[i]?.name} lists no replica on ${replica.name}'s port ${replica.port} (master ${master.name})` };
    const bad = unsettledFlags(known.flags);
    if (bad.length > 0) return { why: `${sentinels[i]?.name} sees replica ${replica.name} with flags ${known.flags.join(',')}` };
  }
  const [onMaster, onReplica] = await Promise.all([replicationInfo(cluster, master.port), replicationInfo(cluster, replica.port)]);
  if (onMaster instanceof Error) return { why: `master ${master.name}: ${onMaster.message}` };
  const online = /^role:master\b/m.test(onMaster) && new RegExp(`^slave\\d+:.*\\bport=${replica.port},state=online\\b`, 'm').test(onMaster);
  if (!online)
    return { why: `master ${master.name} does not list ${replica.name} online: ${replicationFields(onMaster, /^(role|connected_slaves|slave\d+):/)}` };
  if (onReplica instanceof Error) return { why: `replica ${replica.name}: ${onReplica.message}` };
  if (!isReplicaInSync(onReplica, master.port))
    return { why: `replica ${replica.name} is not in sync with ${master.name}: ${replicationFields(onReplica, REPLICA_FIELDS)}` };
  return { roles };
}

/**
 * Waits until the replicated Redis is settled (redisSettledNow), with `expected` as its roles when
 * given, and returns its roles; throws after timeoutMs naming what did not settle, or at once when
 * it settled with the roles swapped (a failover came between).
 */
export async function waitRedisSettled(cluster: RunningCluster, timeoutMs: number, expected?: RedisRoles): Promise<RedisRoles> {
  const t0 = Date.now();
  let last = { why: 'not asked' } as Settle;
  const settled = await pollUntil(
    async () => {
      last = await redisSettledNow(cluster);
      if ('roles' in last && expected && last.roles.master !== expected.master)
        throw new Error(`the replicated Redis settled with ${last.roles.master.name} as master, not ${expected.master.name}: a failover came between`);
      return 'roles' in last;
    },
    timeoutMs,
    100,
  );
  if (settled && 'roles' in last) return last.roles;
  throw new Error(`the replicated Redis did not settle within ${timeoutMs} ms (${Date.now() - t0} ms): ${'why' in last ? last.why : ''}`);
}

/** Waits until every Sentinel names `port` as the master; false after timeoutMs. */
export async function waitPromoted(cluster: RunningCluster, port: number, timeoutMs: number): Promise<boolean> {
  return pollUntil(async () => (await sentinelMasterPort(cluster)) === port, timeoutMs, 50);
}

/** Waits until the server on `port` is a replica whose link to its master is up; false after timeoutMs. */
export async function waitReplicaInSync(cluster: RunningCluster, port: number, timeoutMs: number): Promise<boolean> {
  return pollUntil(
    async () => {
      const info = await replicationInfo(cluster, port);
      return !(info instanceof Error) && isReplicaInSync(info);
    },
    timeoutMs,
    100,
  );
}

/** A server's replication fields that say why it is not (yet) a replica in sync, for a failure's details. */
export async function replicationState(cluster: RunningCluster, port: number): Promise<string> {
  const info = await replicationInfo(cluster, port);
  return info instanceof Error ? info.message : replicationFields(info, REPLICA_FIELDS);
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
      const info = await replicationInfo(cluster, port);
      return !(info instanceof Error) && isReplicaInSync(info, masterPort);
    },
    timeoutMs,
    100,
  );
}
