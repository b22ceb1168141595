// The lab's own cluster: a temp dir, free loopback ports, instances with the fault hooks on. It is
// never the default-port cluster, and it goes away with the run, dir and all (its logs can be kept).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freeClusterConfig, startCluster, type RunningCluster } from '../src/cluster/cluster.js';
import { REDIS_COMMAND_TIMEOUT_MS, ZK_SESSION_MS } from './locks.js';
import type { LabTopology } from './scenario.js';
import { removeTree } from '../src/paths.js';

/**
 * The env every lab instance runs with: the pause hooks on, the short ZooKeeper session, and a short
 * Redis command timeout, so a reply held up by a frozen Redis is given up on quickly (lost-reply).
 */
export const LAB_INSTANCE_ENV: Readonly<Record<string, string>> = {
  FAULT_INJECTION: '1',
  ZK_SESSION_TIMEOUT_MS: String(ZK_SESSION_MS),
  REDIS_COMMAND_TIMEOUT_MS: String(REDIS_COMMAND_TIMEOUT_MS),
  LOG_LEVEL: 'warn',
};

export interface LabCluster {
  cluster: RunningCluster;
  dir: string;
  /** Stops every server and removes the dir; with `keepLogsIn`, its logs are copied there first (they explain a failed case). */
  stop(keepLogsIn?: string): Promise<void>;
}

export async function startLabCluster(log: (line: string) => void, topology: LabTopology = 'single'): Promise<LabCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-faults-'));
  const config = await freeClusterConfig(dir, 3, topology);
  let cluster: RunningCluster;
  try {
    cluster = await startCluster({ config, instanceEnv: { ...LAB_INSTANCE_ENV }, log });
  } catch (err) {
    log(`cluster failed to start; its logs are in ${dir}/logs`);
    throw err;
  }
  return {
    cluster,
    dir,
    async stop(keepLogsIn) {
      await cluster.stop();
      if (keepLogsIn) {
        fs.cpSync(path.join(dir, 'logs'), keepLogsIn, { recursive: true });
        log(`the servers' logs are kept in ${keepLogsIn}`);
      }
      removeTree(dir);
    },
  };
}
