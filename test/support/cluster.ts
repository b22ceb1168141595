// Helpers for test files: this worker's shared cluster booted by global-setup.ts, or a private one for tests
// that kill and restart servers.
import { inject } from 'vitest';
import type { LabTopology } from '../../faults/scenario.js';
import { freeClusterConfig, startCluster, type ClusterInfo, type RunningCluster } from '../../src/cluster/cluster.js';
import { withFixture } from './fixture.js';

/** This worker's shared 3-instance cluster; do not stop or kill its servers. */
export function sharedCluster(): ClusterInfo {
  const clusters = inject('clusters');
  const worker = Number(process.env.VITEST_POOL_ID ?? '1');
  const cluster = clusters[(worker - 1) % clusters.length];
  if (!cluster) throw new Error(`no shared cluster for worker ${worker} (${clusters.length} booted)`);
  return cluster;
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
      const config = { ...(await freeClusterConfig(dir, opts.instances ?? 3, opts.topology)), ...(opts.nginxCapacity !== undefined && { nginxCapacity: opts.nginxCapacity }) };
      return startCluster({ config, instanceEnv: { LOG_LEVEL: 'warn', ...opts.instanceEnv } });
    },
    (cluster) => cluster.stop(),
  );
}
