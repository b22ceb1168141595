// vitest globalSetup: the shared 3-instance clusters on free ports, each in a fresh temp dir, one
// per integration worker (test files read theirs with sharedCluster() from ./cluster.ts). Booted
// side by side; a worker runs its files one at a time on its own cluster and stock row.
// The boot (about 15 s) runs while the unit and lock files do, which leave a core mostly idle: the
// clusters' addresses are known from their configs before any server starts, and the integration
// files wait for them to be up (./shared-ready.ts, their setup file). So that no lock file picks a
// port a shared cluster has chosen and not bound yet, each cluster draws its ports from 1000 of its
// own at the top of FREE_PORTS and the workers, started after this setup, from the rest.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { clusterInfo, freeClusterConfig, startCluster, type ClusterInfo } from '../../src/cluster/cluster.js';
import type { ClusterConfig } from '../../src/cluster/layout.js';
import { freePortRange } from '../../src/env.js';
import { removeTree } from '../../src/paths.js';
import { INTEGRATION_WORKERS, readyMark } from './workers.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** One cluster per integration worker; each worker process claims one (sharedCluster()). */
    clusters: ClusterInfo[];
    /** Where a worker process claims its cluster (sharedCluster()), one file per cluster, and where each cluster's boot leaves its mark. */
    clusterClaims: string;
  }
}

/** Ports kept for each shared cluster at the top of FREE_PORTS, when it is wide enough to give them away. */
const SHARED_PORTS = 1_000;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const claims = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-test-claims-'));
  const range = freePortRange();
  const before = process.env.FREE_PORTS;
  // Each cluster its own 1000 ports at the top, so two never pick the same one before either binds
  // it, and the rest (at least 2000) for the workers. Too narrow to split: boot first, from the
  // whole range, as nothing else runs yet.
  const split = range.max - range.min >= (INTEGRATION_WORKERS + 2) * SHARED_PORTS;
  const slice = (i: number) => ({ min: range.max - (i + 1) * SHARED_PORTS, max: range.max - i * SHARED_PORTS - 1 });
  const dirs = Array.from({ length: INTEGRATION_WORKERS }, () => fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-test-')));
  const configs = await Promise.all(dirs.map((dir, i) => freeClusterConfig(dir, 3, 'single', split ? slice(i) : undefined)));
  if (split) process.env.FREE_PORTS = `${range.min}-${range.max - INTEGRATION_WORKERS * SHARED_PORTS - 1}`;
  const boots = configs.map((config, i) => bootShared(config, i + 1, claims));
  project.provide(
    'clusters',
    configs.map((c) => clusterInfo(c)),
  );
  project.provide('clusterClaims', claims);
  const stopAll = async () => {
    const up = await Promise.allSettled(boots);
    await Promise.all(up.flatMap((r) => (r.status === 'fulfilled' ? [r.value.stop()] : [])));
  };
  if (!split) {
    const failed = (await Promise.allSettled(boots)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await stopAll();
      throw failed.reason;
    }
  }
  return async () => {
    await stopAll();
    removeTree(claims);
    if (before === undefined) delete process.env.FREE_PORTS;
    else process.env.FREE_PORTS = before;
  };
}

/** Boots cluster n and leaves its mark in `claims`: ready, or the reason it failed. */
async function bootShared(config: ClusterConfig, n: number, claims: string): Promise<{ stop: () => Promise<void> }> {
  const t0 = Date.now();
  try {
    // startCluster stops whatever it did start if a later server fails, so a failed boot leaves no
    // processes; the data dir is kept then, for its logs.
    const cluster = await startCluster({
      config,
      instanceEnv: { LOG_LEVEL: 'warn' },
      // STOCKLAB_TEST_VERBOSE=1 shows each server's start time
      log: (line) => {
        if (process.env.STOCKLAB_TEST_VERBOSE) console.log(`[cluster] ${line}`);
      },
    });
    console.log(`[cluster] shared test cluster ${n} up in ${Date.now() - t0} ms: ${cluster.info.nginx} (${config.dir})`);
    fs.writeFileSync(readyMark(claims, n - 1), 'ready');
    return {
      stop: async () => {
        await cluster.stop();
        removeTree(config.dir);
      },
    };
  } catch (err) {
    const why = `shared test cluster failed to start (logs in ${config.dir}/logs): ${err instanceof Error ? err.message : String(err)}`;
    fs.writeFileSync(readyMark(claims, n - 1), `failed: ${why}`);
    throw new Error(why);
  }
}
