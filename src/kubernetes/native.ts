// The native cluster's server specs read for their settings: each spec is asked for its command
// line (or, for a config file, rendered into a scratch folder) with stand-in binaries, and the
// settings that mean the same in a container are kept. What belongs to the machine (data folders,
// sockets, bind addresses, pid files) is left to the image.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HostPort } from '../config.js';
import type { ClusterConfig } from '../cluster/layout.js';
import { etcdSpec } from '../cluster/etcd.js';
import { mariadbSpec } from '../cluster/mariadb.js';
import type { Binaries } from '../cluster/packages.js';
import { postgresSpec } from '../cluster/postgres.js';
import { redisSpec, sentinelSpec } from '../cluster/redis.js';
import { zookeeperSpec, zooCfg, type ZkEnsembleMember } from '../cluster/zookeeper.js';

/** Names only: a spec puts them first on its command line, and nothing here runs them. */
const BIN: Binaries = {
  mariadbd: 'mariadbd',
  mariadbInstallDb: 'mariadb-install-db',
  redisServer: 'redis-server',
  java: 'java',
  zookeeperJar: 'zookeeper.jar',
  nginx: 'nginx',
  etcd: 'etcd',
  initdb: 'initdb',
  postgres: 'postgres',
};
const SCRATCH = '/stocklab-native';

/** `--flag value` pairs and `--flag=value` alike, as [flag, value] (value '' for a bare flag). */
function flagPairs(args: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (!a.startsWith('-')) continue;
    const eq = a.indexOf('=');
    if (eq > 0) out.push([a.slice(0, eq), a.slice(eq + 1)]);
    else if (args[i + 1] !== undefined && !(args[i + 1] as string).startsWith('--')) out.push([a, args[++i] as string]);
    else out.push([a, '']);
  }
  return out;
}

/** MariaDB's flags that MySQL 8 reads the same way. */
const MYSQL_SHARED = new Set(['--innodb-flush-log-at-trx-commit', '--skip-log-bin', '--skip-name-resolve', '--max-connections', '--character-set-server']);

/**
 * mysqld's flags from the native MariaDB's. MariaDB's statement bound (seconds) is MySQL's
 * max-execution-time (ms, SELECTs only), as docker-compose.yml has it; idle-transaction-timeout has
 * no MySQL 8 twin, and docs/kubernetes.md says what that leaves.
 */
export function mysqlArgs(cluster: ClusterConfig): string[] {
  const args = flagPairs(mariadbSpec(cluster, SCRATCH, BIN).launch().args);
  return args.flatMap(([flag, value]) => {
    if (flag === '--max-statement-time') return [`--max-execution-time=${Number(value) * 1000}`];
    if (!MYSQL_SHARED.has(flag)) return [];
    return [value === '' ? flag : `${flag}=${value}`];
  });
}

/** PostgreSQL's `-c` settings of the native server, but where it listens: the image listens on every address and needs its socket to set itself up. */
export function postgresArgs(cluster: ClusterConfig): string[] {
  const launched = postgresSpec(cluster, 0, SCRATCH, BIN).launch();
  const line = [launched.command, ...launched.args];
  const args = line.slice(line.indexOf(BIN.postgres) + 1);
  return flagPairs(args)
    .filter(([flag, value]) => flag === '-c' && !/^(listen_addresses|unix_socket_directories)=/.test(value))
    .flatMap(([, value]) => ['-c', value]);
}

/** What redis-server is told on the native command line, but its config file, address and folder (the container's own). */
export function redisArgs(name: string, port: number, cluster: ClusterConfig, persistence?: () => 'none' | 'fsync'): string[] {
  const args = redisSpec(name, port, SCRATCH, BIN, cluster.redisPassword, persistence ? { persistence } : {})
    .launch()
    .args.slice(1);
  return flagPairs(args)
    .filter(([flag]) => !['--bind', '--dir'].includes(flag))
    .flat();
}

/** A config file a spec writes in `prepare`, rendered into a scratch folder and read back, its work folder (`workDir` there) named `dataDir`. */
function prepared(write: (dir: string) => void, file: (dir: string) => string, workDir: (dir: string) => string, dataDir: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-k8s-'));
  try {
    write(dir);
    return fs.readFileSync(file(dir), 'utf8').replaceAll(workDir(dir), dataDir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The native Sentinel's config for one watching `master`; its folder is the container's `dataDir`. */
export function sentinelConf(port: number, master: HostPort, cluster: ClusterConfig, dataDir: string): string {
  return prepared(
    (dir) => void sentinelSpec('sentinel', port, master, dir, BIN, cluster.redisPassword, { host: '0.0.0.0' }).prepare?.(),
    (dir) => path.join(dir, 'redis', 'sentinel', 'sentinel.conf'),
    (dir) => path.join(dir, 'redis', 'sentinel'),
    dataDir,
  );
}

/** zoo.cfg as the native cluster writes it, with every node on its pod's name. */
export function zookeeperConf(port: number, dataDir: string, ensemble: ZkEnsembleMember | undefined): string {
  return zooCfg(port, dataDir, ensemble, '0.0.0.0');
}

/** The JVM flags the native ZooKeeper starts with (a small heap, serial GC, C1 only). */
export function zookeeperJvmFlags(): string {
  return zookeeperSpec('zookeeper', 0, SCRATCH, BIN)
    .launch()
    .args.filter((a) => /^-X/.test(a))
    .join(' ');
}

/**
 * etcd's flags from the native member's, for the member in the pod named `$(POD_NAME)` (Kubernetes
 * puts the pod's name there): it listens on every address and advertises its pod's DNS name.
 */
export function etcdArgs(
  members: readonly { name: string; peerUrl: string }[],
  dataDir: string,
  ports: { client: number; peer: number },
  podHost: string,
): string[] {
  const args = etcdSpec('$(POD_NAME)', ports, dataDir, BIN, { host: podHost }, { members }).launch().args;
  const own: Record<string, string> = {
    '--data-dir': dataDir,
    '--listen-client-urls': `http://0.0.0.0:${ports.client}`,
    '--listen-peer-urls': `http://0.0.0.0:${ports.peer}`,
  };
  return flagPairs(args).flatMap(([flag, value]) => [flag, own[flag] ?? value]);
}
