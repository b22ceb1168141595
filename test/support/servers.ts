// Single data servers for tests that need one server and not a cluster (the lock contract suite):
// the cluster's own server specs, on free ports in a temp dir, started in beforeAll, stopped after.
import fs from 'node:fs';
import path from 'node:path';
import { freeClusterConfig, ManagedServer, migrationConfig, postgresMigrationConfig } from '../../src/cluster/cluster.js';
import { mariadbSpec } from '../../src/cluster/mariadb.js';
import { etcdSpec } from '../../src/cluster/etcd.js';
import { ensureBinaries } from '../../src/cluster/packages.js';
import { postgresSpec } from '../../src/cluster/postgres.js';
import { redisSpec } from '../../src/cluster/redis.js';
import { zookeeperSpec } from '../../src/cluster/zookeeper.js';
import type { MysqlConfig, PostgresConfig } from '../../src/config.js';
import { runMigrations } from '../../src/db/migrate.js';
import { runPostgresMigrations } from '../../src/db/postgres-migrate.js';
import { withFixture } from './fixture.js';

export interface ServersWanted {
  /** How many independent Redis servers. */
  redis?: number;
  mysql?: boolean;
  zookeeper?: boolean;
  etcd?: boolean;
  /** PostgreSQL, migrated (the stock's twin and the advisory locks). */
  postgres?: boolean;
}

export interface RunningServers {
  redis: string[];
  /** Connection settings for the lab's database, migrated. */
  mysql: MysqlConfig;
  zookeeper: string;
  /** etcd's client URL. */
  etcd: string;
  postgres: PostgresConfig;
}

/** Starts what `wanted` names for the calling file, and stops it after. */
export function withServers(wanted: ServersWanted): { readonly current: RunningServers } {
  let servers: ManagedServer[] = [];
  const stop = async () => void (await Promise.allSettled(servers.map((s) => s.stop())));
  return withFixture(
    'servers',
    async (dir) => {
      fs.mkdirSync(path.join(dir, 'logs'));
      const config = await freeClusterConfig(dir, 0);
      const bin = ensureBinaries();
      const redisPorts = config.ports.redlock.slice(0, wanted.redis ?? 0);
      const redis = redisPorts.map((port, i) => new ManagedServer(redisSpec(`redis-${i}`, port, dir, bin)));
      const mysql = wanted.mysql ? [new ManagedServer(mariadbSpec(config, dir, bin))] : [];
      const zookeeper = wanted.zookeeper ? [new ManagedServer(zookeeperSpec('zookeeper', config.ports.zookeeper, dir, bin))] : [];
      const etcd = wanted.etcd ? [new ManagedServer(etcdSpec('etcd', { client: config.ports.etcd, peer: config.ports.etcdPeer }, dir, bin))] : [];
      const postgres = wanted.postgres ? [new ManagedServer(postgresSpec(config, config.ports.postgres, dir, bin))] : [];
      servers = [...redis, ...mysql, ...zookeeper, ...etcd, ...postgres];
      const started = await Promise.allSettled(servers.map((s) => s.start()));
      const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) {
        await stop();
        throw failed.reason;
      }
      if (wanted.mysql) await runMigrations(migrationConfig(config));
      if (wanted.postgres) await runPostgresMigrations(postgresMigrationConfig(config));
      return {
        redis: redisPorts.map((port) => `redis://127.0.0.1:${port}`),
        mysql: { ...migrationConfig(config), poolSize: 10 },
        zookeeper: `127.0.0.1:${config.ports.zookeeper}`,
        etcd: `http://127.0.0.1:${config.ports.etcd}`,
        postgres: { ...postgresMigrationConfig(config), poolSize: 10 },
      };
    },
    stop,
  );
}
