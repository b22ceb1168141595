// The native cluster: MariaDB, Redis + 5 RedLock masters, ZooKeeper, etcd, PostgreSQL, the app instances and nginx,
// started as plain processes with their data in one directory. Shared by the CLI, bench and tests.
import fs from 'node:fs';
import path from 'node:path';
import { hostPort, type MysqlConfig, type PostgresConfig } from '../config.js';
import {
  etcdEndpointsOf,
  etcdMembers,
  etcdNames,
  loadClusterConfig,
  reachAt,
  redisUrlAt,
  serverAddress,
  zkConnectOf,
  zookeeperNames,
  type ClusterConfig,
  type RedlockMastersConfig,
} from './layout.js';
import { chooseHostsLayout, createHosts, hasNetAdmin, HOSTS_TOOLS, removeHosts, requireHostsSupport, type HostsLayout } from '../net/hosts.js';
import { sleep } from '../time.js';
import { runMigrations } from '../db/migrate.js';
import { runPostgresMigrations } from '../db/postgres-migrate.js';
import { REPO_ROOT } from '../paths.js';
import { etcdSpec, type EtcdCluster } from './etcd.js';
import { instanceSpec } from './instance.js';
import { isLink, linkRecords, linkSpecs, retimedRecord, retimeLinks, rttOf, selectLinks, withLinks, writeRttFile } from './links.js';
import { mariadbSpec } from './mariadb.js';
import { NginxRotation, nginxSpec } from './nginx.js';
import { ensureBinaries, ensureExecutable } from './packages.js';
import { placementOf } from './placement.js';
import { postgresSpec } from './postgres.js';
import { freePorts, isPortFreeAt } from './ports.js';
import { PUBLISH_NAME, publishSpec } from './publish.js';
import { redisSpec, sentinelSpec } from './redis.js';
import { ManagedServer, type ServerSpec } from './server.js';
import type { ClusterInfo, RunningCluster, ServerHandle, StartClusterOptions } from './types.js';
import { zookeeperSpec } from './zookeeper.js';

export type { ProcessIdentity } from './processes.js';
export type { ClusterInfo, ClusterServers, RunningCluster, ServerHandle, StartClusterOptions } from './types.js';
export { ManagedServer } from './server.js';

/** The data dir holds passwords (cluster.json, the servers' configs): only its owner may look in. */
export function makePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
}

/** Relative data dirs are taken from the repository root, wherever the command is run from. */
export function resolveDir(dir: string): string {
  return path.resolve(REPO_ROOT, dir);
}

/** Where a client reaches each server: its own address, or its delaying forwarder's (see links.ts). */
export function clusterInfo(cfg: ClusterConfig): ClusterInfo {
  const p = cfg.ports;
  const reach = (name: string, port: number) => reachAt(cfg, name, port);
  const layout = cfg.hosts;
  const links = linkRecords(cfg);
  return {
    dir: resolveDir(cfg.dir),
    // nginx is on 127.0.0.1 in every topology (the hosts topology publishes it there)
    nginx: `http://127.0.0.1:${p.nginx}`,
    instances: p.instances.map((port) => `http://${hostPort(reach(`app-${port}`, port))}`),
    mysql: { ...reach('mysql', p.mysql), ...cfg.mysql },
    redis: redisUrlAt(cfg, 'redis', p.redis),
    redlock: p.redlock.map((port, i) => redisUrlAt(cfg, `redlock-${i}`, port)),
    zookeeper: zkConnectOf(cfg),
    postgres: { ...reach('postgres', p.postgres), ...cfg.postgres },
    etcd: etcdEndpointsOf(cfg),
    ...(cfg.replicated && { sentinels: cfg.replicated.sentinels.map((port, i) => hostPort(reach(`sentinel-${i}`, port))) }),
    ...(layout && { hosts: layout.hosts, network: { id: layout.id, bridge: layout.bridge, subnet: layout.subnet, gateway: layout.gateway } }),
    rttMs: rttOf(cfg),
    ...(links && { links }),
  };
}

/** The hosts layout a cluster record describes, if it is one of the hosts topology. */
export function layoutOfInfo(info: ClusterInfo): HostsLayout | undefined {
  return info.hosts && info.network ? { ...info.network, hosts: info.hosts } : undefined;
}

/** Every server a cluster config starts, by name, in start order (nginx's publisher aside). */
export function clusterServerNames(cfg: ClusterConfig): string[] {
  const rep = cfg.replicated;
  return [
    'mysql',
    'redis',
    ...(rep ? ['redis-replica', ...rep.sentinels.map((_p, i) => `sentinel-${i}`)] : []),
    ...cfg.ports.redlock.map((_p, i) => `redlock-${i}`),
    ...zookeeperNames(cfg),
    ...etcdNames(cfg),
    'postgres',
    ...cfg.ports.instances.map((port) => `app-${port}`),
    'nginx',
  ];
}

/** The config with its hosts layout chosen, when it asks for the hosts topology and has none yet. */
export async function withHostsLayout(cfg: ClusterConfig): Promise<ClusterConfig> {
  if (cfg.network !== 'hosts' || cfg.hosts) return cfg;
  // Its tools come from Debian as the servers do; without root, requireHostsSupport says what is missing.
  if (hasNetAdmin()) for (const [tool, pkg] of HOSTS_TOOLS) ensureExecutable([tool], pkg);
  await requireHostsSupport();
  return { ...cfg, hosts: await chooseHostsLayout(clusterServerNames(cfg)) };
}

export function migrationConfig(cfg: ClusterConfig): MysqlConfig {
  return { host: serverAddress(cfg, 'mysql'), port: cfg.ports.mysql, ...cfg.mysql, poolSize: 1, connectTimeoutMs: 5_000 };
}

/** PostgreSQL as its migrations reach it: the server itself, one connection. */
export function postgresMigrationConfig(cfg: ClusterConfig): PostgresConfig {
  return { host: serverAddress(cfg, 'postgres'), port: cfg.ports.postgres, ...cfg.postgres, poolSize: 1 };
}

/**
 * Stop order: the front first (nginx, then the apps), so no client is proxied to an instance that
 * is going away; then ZooKeeper, the RedLock masters, Redis, and MySQL; the delaying forwarders
 * last, so a draining instance still reaches its servers.
 */
export function inStopOrder<T extends { name: string }>(servers: readonly T[]): T[] {
  const rank = (n: string) =>
    n === PUBLISH_NAME
      ? -1
      : n === 'nginx'
        ? 0
        : n.startsWith('app-')
          ? 1
          : n.startsWith('zookeeper') || n.startsWith('etcd')
            ? 2
            : n.startsWith('redlock-')
              ? 3
              : n.startsWith('sentinel-')
                ? 4 // before the Redis they watch: no failover on the way down
                : n.startsWith('redis')
                  ? 5
                  : isLink(n)
                    ? 7
                    : 6;
  return [...servers].sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name));
}

/**
 * The spec `startCluster` gives an app instance, a RedLock master or a ZooKeeper server, by name:
 * what a lab needs to start one again after it crashed it (see lifecycle.ts recordedHandle).
 */
export function restartSpec(config: ClusterConfig, dir: string, name: string, instanceEnv: Record<string, string>): ServerSpec {
  const bin = ensureBinaries();
  const p = config.ports;
  const app = p.instances.find((port) => `app-${port}` === name);
  if (app !== undefined) return instanceSpec(config, app, dir, instanceEnv);
  const master = p.redlock.findIndex((_port, i) => `redlock-${i}` === name);
  const place = placementOf(config, name);
  if (master >= 0)
    return redisSpec(name, p.redlock[master] as number, dir, bin, config.redisPassword, { persistence: () => config.redlockMasters.persistence }, place);
  const rep = config.replicated;
  if (!rep && name === 'zookeeper') return zookeeperSpec(name, p.zookeeper, dir, bin, undefined, place);
  const names = zookeeperNames(config);
  const index = rep ? names.indexOf(name) : -1;
  const node = rep?.zookeeper[index];
  if (rep && node) return zookeeperSpec(name, node.client, dir, bin, ensembleMember(config, index), place);
  const etcdIndex = etcdNames(config).indexOf(name);
  const member = etcdMembers(config)[etcdIndex];
  if (member) return etcdSpec(name, member, dir, bin, place, etcdCluster(config));
  if (name === 'postgres') return postgresSpec(config, p.postgres, dir, bin, place);
  throw new Error(`no server ${name} to start again (app-PORT, redlock-N, zookeeper[-N], etcd or postgres)`);
}

/** Stops servers one after the other, trying them all even if some fail; rethrows the first failure. */
async function stopAll(servers: ServerHandle[]): Promise<void> {
  let first: unknown;
  for (const s of servers) {
    try {
      await s.stop();
    } catch (err) {
      first ??= err;
    }
  }
  if (first) throw first;
}

/**
 * Node `index` of the replicated topology's ensemble, with every node's address: its own quorum
 * ports, and the others' as it reaches them (their delaying forwarders, when the links are delayed).
 */
export function ensembleMember(config: ClusterConfig, index: number) {
  const names = zookeeperNames(config);
  const nodes = (config.replicated?.zookeeper ?? []).map((n, i) => {
    if (i === index) return n;
    const name = names[i] as string;
    return { client: n.client, peer: reachAt(config, `${name}-peer`, n.peer).port, election: reachAt(config, `${name}-election`, n.election).port };
  });
  return { nodes, index, hosts: names.map((n) => serverAddress(config, n)) };
}

/** etcd's members as each is reached by its peers: its own peer port, or its forwarder's. */
export function etcdCluster(config: ClusterConfig): EtcdCluster {
  const names = etcdNames(config);
  return {
    members: etcdMembers(config).map((m, i) => ({
      name: names[i] as string,
      peerUrl: `http://${hostPort(reachAt(config, `${names[i] as string}-peer`, m.peer))}`,
    })),
  };
}

/** The config with what it still lacks chosen: its hosts layout (hosts topology) and its forwarders' ports (a round trip). */
export async function completeConfig(cfg: ClusterConfig): Promise<ClusterConfig> {
  return withLinks(await withHostsLayout(cfg));
}

export async function startCluster(opts: StartClusterOptions): Promise<RunningCluster> {
  const config = await completeConfig(opts.config);
  const layout = config.hosts;
  const log = opts.log ?? (() => undefined);
  const detached = opts.detached ?? false;
  const dir = resolveDir(config.dir);
  const p = config.ports;
  makePrivateDir(dir);
  fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
  const bin = ensureBinaries(log);
  const make = (spec: ServerSpec) => new ManagedServer(spec, { detached, log, onSpawn: opts.onSpawn });
  const place = (name: string) => placementOf(config, name);
  const at = (name: string) => serverAddress(config, name);

  const rep = config.replicated;
  const pw = config.redisPassword;
  // With delayed links the replica, the Sentinels and the clients they answer all reach a Redis
  // server through its forwarder, which is also the address each one announces.
  const delayed = config.links !== undefined;
  const announced = (name: string, port: number) => (delayed ? reachAt(config, name, port) : undefined);
  const master = reachAt(config, 'redis', p.redis);
  const mysql = make(mariadbSpec(config, dir, bin));
  const redis = make(redisSpec('redis', p.redis, dir, bin, pw, { announce: rep ? announced('redis', p.redis) : undefined }, place('redis')));
  const redisReplica =
    rep &&
    make(
      redisSpec(
        'redis-replica',
        rep.redisReplica,
        dir,
        bin,
        pw,
        { replicaOf: master, announce: announced('redis-replica', rep.redisReplica) },
        place('redis-replica'),
      ),
    );
  const sentinels = (rep?.sentinels ?? []).map((port, i) =>
    make(sentinelSpec(`sentinel-${i}`, port, master, dir, bin, pw, place(`sentinel-${i}`), announced(`sentinel-${i}`, port))),
  );
  const redlockMasters: RedlockMastersConfig = { ...config.redlockMasters };
  const persistence = () => redlockMasters.persistence;
  const redlockServers = p.redlock.map((port, i) => make(redisSpec(`redlock-${i}`, port, dir, bin, pw, { persistence }, place(`redlock-${i}`))));
  const redlock = redlockServers.map((server) => withRestartDelay(server, () => redlockMasters.restartDelayMs));
  const zkNames = zookeeperNames(config);
  const zkNodes = rep
    ? rep.zookeeper.map((n, index) =>
        make(zookeeperSpec(zkNames[index] as string, n.client, dir, bin, ensembleMember(config, index), place(zkNames[index] as string))),
      )
    : [make(zookeeperSpec('zookeeper', p.zookeeper, dir, bin, undefined, place('zookeeper')))];
  const zookeeper = zkNodes[0] as ManagedServer;
  const etcdNodes = etcdMembers(config).map((m, i) => {
    const name = etcdNames(config)[i] as string;
    return make(etcdSpec(name, m, dir, bin, place(name), etcdCluster(config)));
  });
  const etcd = etcdNodes[0] as ManagedServer;
  const postgres = make(postgresSpec(config, p.postgres, dir, bin, place('postgres')));
  // nginx reaches each instance at its own address or through its forwarder
  const upstream = layout || delayed ? (port: number) => hostPort(reachAt(config, `app-${port}`, port)) : undefined;
  const rotation = new NginxRotation(p.nginx, p.instances, dir, config.nginxCapacity, upstream && { listen: at('nginx'), upstream });
  const nginx = make(nginxSpec(p.nginx, p.instances, dir, bin, rotation, config.nginxCapacity, place('nginx'), upstream));
  rotation.server = nginx;
  const nginxPublish = layout && make(publishSpec(p.nginx, { host: at('nginx'), port: p.nginx }, dir));
  const apps = p.instances.map((port) => make(instanceSpec(config, port, dir, opts.instanceEnv)));
  const instances = apps.map((app) => inRotation(app, rotation));
  const links = linkSpecs(config, dir).map(make);
  const servers = {
    mysql,
    redis,
    ...(redisReplica && { redisReplica }),
    sentinels,
    redlock,
    zookeeper,
    zookeeperEnsemble: zkNodes,
    etcd,
    etcdEnsemble: etcdNodes,
    postgres,
    nginx,
    ...(nginxPublish && { nginxPublish }),
    instances,
    links,
  };
  const all = [
    ...links,
    mysql,
    redis,
    ...(redisReplica ? [redisReplica] : []),
    ...sentinels,
    ...redlockServers,
    ...zkNodes,
    ...etcdNodes,
    postgres,
    ...apps,
    nginx,
    ...(nginxPublish ? [nginxPublish] : []),
  ];
  const stopOrder = inStopOrder(all);
  const stopAndUnplug = async () => {
    try {
      await stopAll(stopOrder);
    } finally {
      // removeHosts stops what still runs in a namespace (a server the stops above missed) first
      if (layout) for (const p of await removeHosts(layout)) log(`stopped pid ${p.pid}, left running ${p.where}: ${p.cmdline}`);
    }
  };

  // Fail before starting anything if a port is taken (often: a cluster left running elsewhere).
  // In the hosts topology the namespaces are new, so only the published port can be taken.
  const busy = (await Promise.all(all.map(async (s) => (s.namespace || (await isPortFreeAt(s.host, s.port)) ? undefined : `${s.name} ${s.port}`)))).filter(
    Boolean,
  );
  if (busy.length > 0) throw new Error(`ports already in use on 127.0.0.1: ${busy.join(', ')} (is another cluster running? try: npm run cluster -- down)`);

  const t0 = Date.now();
  try {
    if (layout) {
      await createHosts(layout);
      log(`network ${layout.bridge} ${layout.subnet}: ${layout.hosts.length} namespaces (${Date.now() - t0} ms)`);
    }
    // The forwarders first: every server and client that starts after them finds its links in place.
    if (links.length > 0) {
      for (const link of links) writeRttFile(dir, link.name, rttOf(config));
      const t = Date.now();
      await settleAll(links.map((s) => s.start()));
      log(`${links.length} links delayed by a round trip of ${rttOf(config)} ms (${Date.now() - t} ms)`);
    }
    // The data servers do not depend on each other: start them side by side.
    await settleAll([
      (async () => {
        await mysql.start();
        const t = Date.now();
        await runMigrations(migrationConfig(config));
        log(`migrations applied (${Date.now() - t} ms)`);
      })(),
      // The replica and the Sentinels need their master up first.
      (async () => {
        await redis.start();
        await redisReplica?.start();
        await settleAll(sentinels.map((s) => s.start()));
      })(),
      ...redlockServers.map((s) => s.start()),
      // An ensemble's nodes wait for each other's quorum: they start together.
      ...zkNodes.map((s) => s.start()),
      // A member of three answers only once the others are up: they start together.
      ...etcdNodes.map((s) => s.start()),
      (async () => {
        await postgres.start();
        const t = Date.now();
        await runPostgresMigrations(postgresMigrationConfig(config));
        log(`postgres migrations applied (${Date.now() - t} ms)`);
      })(),
    ]);
    await settleAll(instances.map((s) => s.start()));
    await nginx.start();
    await nginxPublish?.start();
  } catch (err) {
    await stopAndUnplug().catch((stopErr: unknown) => log(`cleanup after failed start: ${String(stopErr)}`));
    throw err;
  }
  log(`cluster ready in ${Date.now() - t0} ms`);
  const info = clusterInfo(config);
  const setRtt = async (ms: number, names?: readonly string[]) => {
    if (links.length === 0) throw new Error(NO_LINKS);
    await retimeLinks(dir, ms, selectLinks(links, names));
    Object.assign(info, retimedRecord(info, ms, names));
  };
  return { info, servers, redlockMasters, ...(layout && { layout }), setRtt, stop: stopAndUnplug };
}

/** Why a cluster brought up at rtt 0 cannot be given a round trip later. */
export const NO_LINKS =
  'this cluster was brought up at rtt 0, without forwarders: its links cannot be delayed now; bring it up with a round trip (npm run cluster -- up --rtt MS, or rttMs in its config) and change it from there';

/**
 * A RedLock master whose start, after a stop or a crash, waits until `delayMs()` has passed since
 * it went down (Kleppmann's delayed restart): by then every lease it granted has ended.
 */
function withRestartDelay(server: ManagedServer, delayMs: () => number): ServerHandle {
  let downAt: number | undefined;
  return wrapped(server, {
    async stop() {
      await server.stop();
      downAt = Date.now();
    },
    async kill() {
      await server.kill();
      downAt = Date.now();
    },
    async start() {
      if (downAt !== undefined) await sleep(downAt + delayMs() - Date.now());
      await server.start();
      downAt = undefined;
    },
  });
}

/** `server` with its own name, port and pid, and the moves given in `moves`. */
function wrapped(server: ManagedServer, moves: Pick<ServerHandle, 'stop' | 'kill' | 'start'>): ServerHandle {
  return {
    get name() {
      return server.name;
    },
    get port() {
      return server.port;
    },
    get host() {
      return server.host;
    },
    get pid() {
      return server.pid;
    },
    ...moves,
  };
}

/**
 * An app instance as the cluster hands it out: a graceful stop takes it out of nginx's rotation
 * first (its drain then meets no new requests), a start puts it back once healthy; a kill is a crash.
 */
function inRotation(app: ManagedServer, rotation: NginxRotation): ServerHandle {
  return wrapped(app, {
    async stop() {
      await rotation.set(app.port, false);
      await app.stop();
    },
    kill: () => app.kill(),
    async start() {
      await app.start();
      await rotation.set(app.port, true);
    },
  });
}

/** Like Promise.all, but waits for every promise before rejecting, so cleanup sees a settled world. */
async function settleAll(promises: Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** A cluster config on free loopback ports (from `range`, else FREE_PORTS) with its data in dir, for tests. */
export async function freeClusterConfig(
  dir: string,
  instances = 3,
  topology: 'single' | 'replicated' | 'hosts' | 'hosts,replicated' = 'single',
  range?: { min: number; max: number },
): Promise<ClusterConfig> {
  const replicated = topology.endsWith('replicated');
  // replicated: a replica, three Sentinels, and two more ZooKeeper nodes with every node's quorum ports
  const ports = await freePorts(12 + instances + (replicated ? 4 + 2 + 6 + 4 : 0), range);
  const take = () => ports.shift() as number;
  const defaults = loadClusterConfig({}); // the defaults, not whatever this shell exports
  const base = {
    nginx: take(),
    mysql: take(),
    redis: take(),
    zookeeper: take(),
    etcd: take(),
    etcdPeer: take(),
    postgres: take(),
    redlock: [take(), take(), take(), take(), take()],
    instances: Array.from({ length: instances }, take),
  };
  return {
    dir,
    ports: base,
    ...(topology.startsWith('hosts') && { network: 'hosts' as const }),
    ...(replicated && {
      replicated: {
        redisReplica: take(),
        sentinels: [take(), take(), take()],
        zookeeper: [base.zookeeper, take(), take()].map((client) => ({ client, peer: take(), election: take() })),
        etcd: [
          { client: base.etcd, peer: base.etcdPeer },
          { client: take(), peer: take() },
          { client: take(), peer: take() },
        ],
      },
    }),
    redlockMasters: defaults.redlockMasters,
    mysql: defaults.mysql,
    postgres: defaults.postgres,
  };
}
