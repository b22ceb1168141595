// vitest globalSetup: one shared 3-instance cluster on free ports in a fresh temp dir, for every
// test file (test files read it with sharedCluster() from ./cluster.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { freeClusterConfig, startCluster, type ClusterInfo } from '../../src/cluster/cluster.js';
import { removeTree } from '../../src/paths.js';

declare module 'vitest' {
  export interface ProvidedContext {
    cluster: ClusterInfo;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
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
  console.log(`[cluster] shared test cluster up in ${Date.now() - t0} ms: ${cluster.info.nginx} (${dir})`);
  project.provide('cluster', cluster.info);

  return async () => {
    await cluster.stop();
    removeTree(dir);
  };
}
