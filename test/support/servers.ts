// Single data servers for tests that need one server and not a cluster (the lock contract suite):
// the cluster's own server specs, on free ports in a temp dir, started in beforeAll, stopped after.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { freeClusterConfig, ManagedServer, migrationConfig } from '../../src/cluster/cluster.js';
import { mariadbSpec } from '../../src/cluster/mariadb.js';
import { ensureBinaries } from '../../src/cluster/packages.js';
import { redisSpec } from '../../src/cluster/redis.js';
import { zookeeperSpec } from '../../src/cluster/zookeeper.js';
import type { MysqlConfig } from '../../src/config.js';
import { runMigrations } from '../../src/db/migrate.js';

export interface ServersWanted {
  /** How many independent Redis servers. */
  redis?: number;
  mysql?: boolean;
  zookeeper?: boolean;
}

export interface RunningServers {
  redis: string[];
  /** Connection settings for the lab's database, migrated. */
  mysql: MysqlConfig;
  zookeeper: string;
}

/** Starts what `wanted` names for the calling file; read `.current` inside tests and hooks. */
export function withServers(wanted: ServersWanted): { readonly current: RunningServers } {
  let running: RunningServers | undefined;
  let servers: ManagedServer[] = [];
  let dir: string | undefined;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-servers-'));
    fs.mkdirSync(path.join(dir, 'logs'));
    const config = await freeClusterConfig(dir, 0);
    const bin = ensureBinaries();
    const redisPorts = config.ports.redlock.slice(0, wanted.redis ?? 0);
    const redis = redisPorts.map((port, i) => new ManagedServer(redisSpec(`redis-${i}`, port, dir as string, bin)));
    const mysql = wanted.mysql ? [new ManagedServer(mariadbSpec(config, dir, bin))] : [];
    const zookeeper = wanted.zookeeper ? [new ManagedServer(zookeeperSpec(config.ports.zookeeper, dir, bin))] : [];
    servers = [...redis, ...mysql, ...zookeeper];
    const started = await Promise.allSettled(servers.map((s) => s.start()));
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    if (wanted.mysql) await runMigrations(migrationConfig(config));
    running = {
      redis: redisPorts.map((port) => `redis://127.0.0.1:${port}`),
      mysql: { ...migrationConfig(config), poolSize: 10 },
      zookeeper: `127.0.0.1:${config.ports.zookeeper}`,
    };
  });
  afterAll(async () => {
    await Promise.allSettled(servers.map((s) => s.stop()));
    running = undefined;
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    get current(): RunningServers {
      if (!running) throw new Error('withServers: the servers are only available inside tests and hooks');
      return running;
    },
  };
}
