// Redis servers: the main one (and, replicated, its replica and three Sentinels), and each
// independent RedLock master. In memory unless a RedLock master is asked to fsync every write.
import fs from 'node:fs';
import path from 'node:path';
import type { HostPort } from '../config.js';
import { SENTINEL_MASTER_NAME, type RedlockPersistence } from './layout.js';
import type { Binaries } from './packages.js';
import { ON_LOOPBACK, type Placement } from './placement.js';
import { redisPing } from './probes.js';
import type { ServerSpec } from './server.js';

export interface RedisRole {
  /** A replica of this master (masterauth: the cluster's password). */
  replicaOf?: HostPort;
  /** Read at every launch, so a lab can switch it between restarts; in memory when absent. */
  persistence?: () => RedlockPersistence;
  /**
   * The address it gives as a replica (replica-announce-ip/port): its delaying forwarder, so the
   * Sentinels, and the clients they answer, reach it through the delay after a failover too.
   */
  announce?: HostPort;
}

/** A config value in double quotes, escaped, as redis.conf reads it. */
const quoted = (value: string) => `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;

/**
 * Off loopback (the hosts topology), protected mode would answer every peer without a password
 * DENIED. The address sits on a private bridge that only the cluster and the machine reach.
 */
function openToPeers(place: Placement): string[] {
  return place.namespace ? ['protected-mode no'] : [];
}

/** What every Redis server of the cluster shares: its name, port, log, timeouts and health check. */
function redisProcess(
  name: string,
  port: number,
  dir: string,
  password: string | undefined,
  place: Placement,
): Pick<ServerSpec, 'name' | 'port' | 'host' | 'namespace' | 'logFile' | 'startTimeoutMs' | 'stopGraceMs' | 'healthy'> {
  return {
    name,
    port,
    ...place,
    logFile: path.join(dir, 'logs', `${name}.log`),
    startTimeoutMs: 10_000,
    stopGraceMs: 5_000,
    healthy: () => redisPing({ host: place.host, port }, password),
  };
}

export function redisSpec(
  name: string,
  port: number,
  dir: string,
  bin: Binaries,
  password?: string,
  role: RedisRole = {},
  place: Placement = ON_LOOPBACK,
): ServerSpec {
  const workDir = path.join(dir, 'redis', name);
  // The password goes in a file only its owner can read, not on the command line (where ps shows it).
  const confFile = path.join(workDir, 'redis.conf');
  return {
    ...redisProcess(name, port, dir, password, place),
    prepare: () => {
      fs.mkdirSync(workDir, { recursive: true });
      const lines = [
        '# written by stocklab (src/cluster/redis.ts) at every start',
        ...(password ? [`requirepass ${quoted(password)}`, `masterauth ${quoted(password)}`] : []),
        ...(role.replicaOf !== undefined ? [`replicaof ${role.replicaOf.host} ${role.replicaOf.port}`] : []),
        ...(role.announce !== undefined ? [`replica-announce-ip ${role.announce.host}`, `replica-announce-port ${role.announce.port}`] : []),
        ...openToPeers(place),
        '',
      ];
      fs.writeFileSync(confFile, lines.join('\n'), { mode: 0o600 });
    },
    launch: () => ({
      command: bin.redisServer,
      args: [
        confFile,
        '--port',
        String(port),
        '--bind',
        place.host,
        '--save',
        '',
        // A full resync starts at once instead of waiting 5 s for more replicas to share it: a lab
        // master has one replica at most, and a rejoining one should not sit out of sync for nothing.
        '--repl-diskless-sync-delay',
        '0',
        // In memory by default: a restarted server starts empty, which is what the crash scenarios
        // mean. fsync: every write is in the append-only file before it is answered.
        ...(role.persistence?.() === 'fsync' ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
        '--daemonize',
        'no',
        '--dir',
        workDir,
        '--logfile',
        '', // stdout, which goes to logs/<name>.log
      ],
    }),
  };
}

/** How quickly the lab's Sentinels act: a master silent for 1 s is down, so a failover fits a test. */
export const SENTINEL_DOWN_AFTER_MS = 1_000;
const SENTINEL_FAILOVER_TIMEOUT_MS = 4_000;

/**
 * One of the three Sentinels watching the main Redis (quorum 2). Sentinel rewrites its own config file.
 * `announce`: the address it gives the other Sentinels (its delaying forwarder, when the links are delayed).
 */
export function sentinelSpec(
  name: string,
  port: number,
  master: HostPort,
  dir: string,
  bin: Binaries,
  password?: string,
  place: Placement = ON_LOOPBACK,
  announce?: HostPort,
): ServerSpec {
  const workDir = path.join(dir, 'redis', name);
  const confFile = path.join(workDir, 'sentinel.conf');
  const m = SENTINEL_MASTER_NAME;
  return {
    ...redisProcess(name, port, dir, password, place),
    prepare: () => {
      fs.mkdirSync(workDir, { recursive: true });
      const lines = [
        '# written by stocklab (src/cluster/redis.ts) at every start; Sentinel adds what it learns',
        `port ${port}`,
        `bind ${place.host}`,
        ...openToPeers(place),
        'daemonize no',
        'logfile ""',
        `dir ${quoted(workDir)}`,
        `sentinel monitor ${m} ${master.host} ${master.port} 2`,
        `sentinel down-after-milliseconds ${m} ${SENTINEL_DOWN_AFTER_MS}`,
        `sentinel failover-timeout ${m} ${SENTINEL_FAILOVER_TIMEOUT_MS}`,
        `sentinel parallel-syncs ${m} 1`,
        ...(announce ? [`sentinel announce-ip ${announce.host}`, `sentinel announce-port ${announce.port}`] : []),
        ...(password ? [`requirepass ${quoted(password)}`, `sentinel auth-pass ${m} ${quoted(password)}`, `sentinel sentinel-pass ${quoted(password)}`] : []),
        '',
      ];
      fs.writeFileSync(confFile, lines.join('\n'), { mode: 0o600 });
    },
    launch: () => ({ command: bin.redisServer, args: [confFile, '--sentinel'] }),
  };
}
