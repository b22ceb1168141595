// Brings the native cluster up the way `npm run cluster -- up` does (the same command, so there is
// one way to start it and one record of it), then waits until its record says every server is healthy.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadClusterConfig } from '../src/config.js';
import { resolveDir } from '../src/cluster/cluster.js';
import { REPO_ROOT } from '../src/cluster/nginx.js';
import { infoOf, isAlive, probe, readState } from '../src/cluster/state.js';
import type { ClusterInfo } from '../src/cluster/types.js';

// Its output goes to stderr with the progress lines; stdout stays the table.
function runClusterCli(command: 'up' | 'down'): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cluster/cli.ts', command], { cwd: REPO_ROOT, stdio: ['ignore', 2, 2] });
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`npm run cluster -- ${command} failed (${signal ?? `exit ${code}`}); see .stocklab/logs`)),
    );
  });
}

/** The recorded cluster when its `up` finished and every server answers its health probe. */
export async function healthyCluster(dir = resolveDir(loadClusterConfig().dir)): Promise<ClusterInfo | undefined> {
  const state = readState(dir);
  if (!state?.complete) return undefined;
  const info = infoOf(state);
  const health = await Promise.all(state.servers.map(async (s) => isAlive(s) && (await probe(s, info))));
  return health.every(Boolean) ? info : undefined;
}

export async function clusterUp(timeoutMs = 180_000): Promise<ClusterInfo> {
  await runClusterCli('up');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await healthyCluster();
    if (info) return info;
    if (Date.now() > deadline) throw new Error(`the cluster did not become healthy within ${timeoutMs / 1000} s; try: npm run cluster -- status`);
    await sleep(500);
  }
}

export const clusterDown = (): Promise<void> => runClusterCli('down');
