// The native cluster: MariaDB, Redis + 5 RedLock masters, ZooKeeper, the app instances and nginx,
// started as plain processes with their data in one directory. Shared by the CLI, bench and tests.
import fs from 'node:fs';
import path from 'node:path';
import { loadClusterConfig, redisUrl, zkConnectOf, type ClusterConfig, type MysqlConfig, type RedlockMastersConfig } from '../config.js';
import { sleep } from '../time.js';
import { runMigrations } from '../db/migrate.js';
import { REPO_ROOT } from '../paths.js';
import { instanceSpec } from './instance.js';
import { mariadbSpec } from './mariadb.js';
import { NginxRotation, nginxSpec } from './nginx.js';
import { ensureBinaries } from './packages.js';
import { freePorts, isPortFree } from './ports.js';
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

export function clusterInfo(cfg: ClusterConfig): ClusterInfo {
  const p = cfg.ports;
  return {
    dir: resolveDir(cfg.dir),
    nginx: `http://127.0.0.1:${p.nginx}`,
    instances: p.instances.map((port) => `http://127.0.0.1:${port}`),
    mysql: { host: '127.0.0.1', port: p.mysql, ...cfg.mysql },
    redis: redisUrl(p.redis, cfg.redisPassword),
    redlock: p.redlock.map((port) => redisUrl(port, cfg.redisPassword)),
    zookeeper: zkConnectOf(cfg),
    ...(cfg.replicated && { sentinels: cfg.replicated.sentinels.map((port) => `127.0.0.1:${port}`) }),
  };
}

export function migrationConfig(cfg: ClusterConfig): MysqlConfig {
  return { host: '127.0.0.1', port: cfg.ports.mysql, ...cfg.mysql, poolSize: 1, connectTimeoutMs: 5_000 };
}

/**
 * Stop order: the front first (nginx, then the apps), so no client is proxied to an instance that
 * is going away; then ZooKeeper, the RedLock masters, Redis, and MySQL last.
 */
export function inStopOrder<T extends { name: string }>(servers: readonly T[]): T[] {
  const rank = (n: string) =>
    n === 'nginx' ? 0
    : n.startsWith('app-') ? 1
    : n.startsWith('zookeeper') ? 2
    : n.startsWith('redlock-') ? 3
    : n.startsWith('sentinel-') ? 4 // before the Redis they watch: no failover on the way down
    : n.startsWith('redis') ? 5
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
  if (master >= 0) return redisSpec(name, p.redlock[master] as number, dir, bin, config.redisPassword, { persistence: () => config.redlockMasters.persistence });
  const rep = config.replicated;
  if (!rep && name === 'zookeeper') return zookeeperSpec(name, p.zookeeper, dir, bin);
  const index = rep ? rep.zookeeper.findIndex((_n, i) => (i === 0 ? 'zookeeper' : `zookeeper-${i}`) === name) : -1;
  const node = rep?.zookeeper[index];
  if (rep && node) return zookeeperSpec(name, node.client, dir, bin, { nodes: rep.zookeeper, index });
  throw new Error(`no server ${name} to start again (app-PORT, redlock-N or zookeeper[-N])`);
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

export async function startCluster(opts: StartClusterOptions): Promise<RunningCluster> {
  const { config } = opts;
  const log = opts.log ?? (() => undefined);
  const detached = opts.detached ?? false;
  const dir = resolveDir(config.dir);
  const p = config.ports;
  makePrivateDir(dir);
  fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
  const bin = ensureBinaries(log);
  const make = (spec: ServerSpec) => new ManagedServer(spec, { detached, log, onSpawn: opts.onSpawn });

  const rep = config.replicated;
  const pw = config.redisPassword;
  const mysql = make(mariadbSpec(config, dir, bin));
  const redis = make(redisSpec('redis', p.redis, dir, bin, pw));
  const redisReplica = rep && make(redisSpec('redis-replica', rep.redisReplica, dir, bin, pw, { replicaOf: p.redis }));
  const sentinels = (rep?.sentinels ?? []).map((port, i) => make(sentinelSpec(`sentinel-${i}`, port, p.redis, dir, bin, pw)));
  const redlockMasters: RedlockMastersConfig = { ...config.redlockMasters };
  const persistence = () => redlockMasters.persistence;
  const redlockServers = p.redlock.map((port, i) => make(redisSpec(`redlock-${i}`, port, dir, bin, pw, { persistence })));
  const redlock = redlockServers.map((server) => withRestartDelay(server, () => redlockMasters.restartDelayMs));
  const zkNodes = rep
    ? rep.zookeeper.map((n, index) => make(zookeeperSpec(index === 0 ? 'zookeeper' : `zookeeper-${index}`, n.client, dir, bin, { nodes: rep.zookeeper, index })))
    : [make(zookeeperSpec('zookeeper', p.zookeeper, dir, bin))];
  const zookeeper = zkNodes[0] as ManagedServer;
  const rotation = new NginxRotation(p.nginx, p.instances, dir, config.nginxCapacity);
  const nginx = make(nginxSpec(p.nginx, p.instances, dir, bin, rotation, config.nginxCapacity));
  rotation.server = nginx;
  const apps = p.instances.map((port) => make(instanceSpec(config, port, dir, opts.instanceEnv)));
  const instances = apps.map((app) => inRotation(app, rotation));
  const servers = { mysql, redis, ...(redisReplica && { redisReplica }), sentinels, redlock, zookeeper, zookeeperEnsemble: zkNodes, nginx, instances };
  const all = [mysql, redis, ...(redisReplica ? [redisReplica] : []), ...sentinels, ...redlockServers, ...zkNodes, ...apps, nginx];
  const stopOrder = inStopOrder(all);

  // Fail before starting anything if a port is taken (often: a cluster left running elsewhere).
  const busy = (await Promise.all(all.map(async (s) => ((await isPortFree(s.port)) ? undefined : `${s.name} ${s.port}`)))).filter(Boolean);
  if (busy.length > 0) throw new Error(`ports already in use on 127.0.0.1: ${busy.join(', ')} (is another cluster running? try: npm run cluster -- down)`);

  const t0 = Date.now();
  try {
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
    ]);
    await settleAll(instances.map((s) => s.start()));
    await nginx.start();
  } catch (err) {
    await stopAll(stopOrder).catch((stopErr: unknown) => log(`cleanup after failed start: ${String(stopErr)}`));
    throw err;
  }
  log(`cluster ready in ${Date.now() - t0} ms`);
  return { info: clusterInfo(config), servers, redlockMasters, stop: () => stopAll(stopOrder) };
}

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

/** A cluster config on free loopback ports with its data in dir, for tests. */
export async function freeClusterConfig(dir: string, instances = 3, topology: 'single' | 'replicated' = 'single'): Promise<ClusterConfig> {
  const replicated = topology === 'replicated';
  // replicated: a replica, three Sentinels, and two more ZooKeeper nodes with every node's quorum ports
  const ports = await freePorts(9 + instances + (replicated ? 4 + 2 + 6 : 0));
  const take = () => ports.shift() as number;
  const defaults = loadClusterConfig({}); // the defaults, not whatever this shell exports
  const base = {
    nginx: take(),
    mysql: take(),
    redis: take(),
    zookeeper: take(),
    redlock: [take(), take(), take(), take(), take()],
    instances: Array.from({ length: instances }, take),
  };
  return {
    dir,
    ports: base,
    ...(replicated && {
      replicated: {
        redisReplica: take(),
        sentinels: [take(), take(), take()],
        zookeeper: [base.zookeeper, take(), take()].map((client) => ({ client, peer: take(), election: take() })),
      },
    }),
    redlockMasters: defaults.redlockMasters,
    mysql: defaults.mysql,
  };
}
