// Helpers for test files: this worker's shared cluster booted by global-setup.ts, or a private one for tests
// that kill and restart servers.
import fs from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import type { LabTopology } from '../../faults/scenario.js';
import { freeClusterConfig, startCluster, type ClusterInfo, type RunningCluster } from '../../src/cluster/cluster.js';
import { withFixture } from './fixture.js';

let claimed: ClusterInfo | undefined;

/**
 * This worker process's shared 3-instance cluster; do not stop or kill its servers. The first call
 * in a process claims a cluster no other live process holds (a file created exclusively, naming the
 * process), and the process keeps it for every file it runs: two files never share a stock row.
 * Worker numbers (VITEST_POOL_ID) are no such guarantee: two workers were seen mapped to one cluster.
 */
export function sharedCluster(): ClusterInfo {
  if (claimed) return claimed;
  const clusters = inject('clusters');
  const dir = inject('clusterClaims');
  for (const [i, cluster] of clusters.entries()) {
    const file = path.join(dir, `cluster-${i}`);
    if (claim(file)) {
      process.once('exit', () => fs.rmSync(file, { force: true }));
      claimed = cluster;
      return cluster;
    }
  }
  throw new Error(`no shared cluster free for process ${process.pid}: all ${clusters.length} are held by live worker processes`);
}

/** Creates `file` naming this process, or takes it over from a process that is gone. */
function claim(file: string): boolean {
  try {
    fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const holder = Number(fs.readFileSync(file, 'utf8'));
  if (holder === process.pid) return true;
  if (isAlive(holder)) return false;
  fs.writeFileSync(file, String(process.pid));
  return true;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface OwnClusterOptions {
  instances?: number;
  /** extra env for each app instance; LOG_LEVEL defaults to warn */
  instanceEnv?: Record<string, string>;
  topology?: LabTopology;
  /** nginx's capacity of requests in flight (its `limit_conn`), lowered for a test; default the template's */
  nginxCapacity?: number;
}

/** A private cluster in a temp dir on free ports, booted before the calling file or describe block and stopped after it. */
export function withOwnCluster(opts: OwnClusterOptions = {}): { readonly current: RunningCluster } {
  return withFixture(
    'own',
    async (dir) => {
      const config = {
        ...(await freeClusterConfig(dir, opts.instances ?? 3, opts.topology)),
        ...(opts.nginxCapacity !== undefined && { nginxCapacity: opts.nginxCapacity }),
      };
      return startCluster({ config, instanceEnv: { LOG_LEVEL: 'warn', ...opts.instanceEnv } });
    },
    (cluster) => cluster.stop(),
  );
}
