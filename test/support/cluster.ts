// Helpers for test files: the shared cluster booted by global-setup.ts, or a private one for tests
// that kill and restart servers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { freeClusterConfig, startCluster, type ClusterInfo, type RunningCluster } from '../../src/cluster/cluster.js';

/** The shared 3-instance cluster; do not stop or kill its servers. */
export function sharedCluster(): ClusterInfo {
  return inject('cluster');
}

export interface OwnClusterOptions {
  instances?: number;
  /** extra env for each app instance; LOG_LEVEL defaults to warn */
  instanceEnv?: Record<string, string>;
}

/**
 * A private cluster in a temp dir on free ports, booted in beforeAll and stopped (dir removed) in
 * afterAll of the calling file or describe block. Read `.current` inside tests and hooks.
 */
export function withOwnCluster(opts: OwnClusterOptions = {}): { readonly current: RunningCluster } {
  let cluster: RunningCluster | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-own-'));
    const config = await freeClusterConfig(dir, opts.instances ?? 3);
    cluster = await startCluster({ config, instanceEnv: { LOG_LEVEL: 'warn', ...opts.instanceEnv } });
  });
  afterAll(async () => {
    await cluster?.stop();
    cluster = undefined;
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    get current(): RunningCluster {
      if (!cluster) throw new Error('withOwnCluster: the cluster is only available inside tests and hooks');
      return cluster;
    },
  };
}
