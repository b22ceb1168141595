// vitest globalSetup: the shared 3-instance clusters on free ports, each in a fresh temp dir, one
// per integration worker (test files read theirs with sharedCluster() from ./cluster.ts). Booted
// side by side; a worker runs its files one at a time on its own cluster and stock row.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { freeClusterConfig, startCluster, type ClusterInfo } from '../../src/cluster/cluster.js';
import { removeTree } from '../../src/paths.js';
import { INTEGRATION_WORKERS } from './workers.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** One cluster per integration worker; each worker process claims one (sharedCluster()). */
    clusters: ClusterInfo[];
    /** Where a worker process claims its cluster (sharedCluster()), one file per cluster. */
    clusterClaims: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = await Promise.allSettled(Array.from({ length: INTEGRATION_WORKERS }, (_, i) => bootShared(i + 1)));
  const up = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const stopAll = async () => {
    await Promise.all(up.map((c) => c.stop()));
  };
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await stopAll();
    throw failed.reason;
  }
  project.provide(
    'clusters',
    up.map((c) => c.info),
  );
  const claims = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-test-claims-'));
  project.provide('clusterClaims', claims);
  return async () => {
    await stopAll();
    removeTree(claims);
  };
}

async function bootShared(n: number): Promise<{ info: ClusterInfo; stop: () => Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-test-'));
  const config = await freeClusterConfig(dir, 3);
  const t0 = Date.now();
  // startCluster stops whatever it did start if a later server fails, so a failed boot leaves no
  // processes; the data dir is kept then, for its logs.
  const cluster = await startCluster({
    config,
    instanceEnv: { LOG_LEVEL: 'warn' },
    // STOCKLAB_TEST_VERBOSE=1 shows each server's start time
    log: (line) => {
      if (process.env.STOCKLAB_TEST_VERBOSE) console.log(`[cluster] ${line}`);
    },
  }).catch((err: unknown) => {
    throw new Error(`shared test cluster failed to start (logs in ${dir}/logs): ${err instanceof Error ? err.message : String(err)}`);
  });
  console.log(`[cluster] shared test cluster ${n} up in ${Date.now() - t0} ms: ${cluster.info.nginx} (${dir})`);
  return {
    info: cluster.info,
    stop: async () => {
      await cluster.stop();
      removeTree(dir);
    },
  };
}
