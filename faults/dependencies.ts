// Stopping and starting a data server of the lab cluster mid-run, so that what it held is still
// there afterwards and "sold = deducted" can be checked across the outage.
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { RunningCluster, ServerHandle } from '../src/cluster/cluster.js';
import { pollUntil } from '../src/time.js';

export type Dependency = 'mysql' | 'redis';

function serverOf(cluster: RunningCluster, dep: Dependency): ServerHandle {
  return dep === 'mysql' ? cluster.servers.mysql : cluster.servers.redis;
}

/**
 * MySQL: the server's own graceful stop (SIGTERM: open transactions are rolled back, committed ones
 * are on disk). Redis: SHUTDOWN SAVE, because the lab's Redis keeps no data otherwise and a restart
 * would start empty: the snapshot holds exactly what was applied before the shutdown, the stock key
 * and the sales record included, as a Redis with persistence would.
 */
export async function stopDependency(cluster: RunningCluster, dep: Dependency): Promise<void> {
  const server = serverOf(cluster, dep);
  if (dep === 'mysql') return server.stop();
  const client = new Redis(cluster.info.redis, { maxRetriesPerRequest: 0, lazyConnect: true });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.call('SHUTDOWN', 'SAVE').catch(() => undefined); // the connection closes instead of a reply
  } finally {
    client.disconnect();
  }
  // ManagedServer notices the exit on its own; then start() may run it again.
  if (!(await pollUntil(() => server.pid === undefined, 10_000))) throw new Error('redis did not exit after SHUTDOWN SAVE');
}

export async function startDependency(cluster: RunningCluster, dep: Dependency): Promise<void> {
  await serverOf(cluster, dep).start();
  // Redis loaded the snapshot: remove it, so any later restart starts empty as the cluster intends.
  if (dep === 'redis') fs.rmSync(path.join(cluster.info.dir, 'redis', 'redis', 'dump.rdb'), { force: true });
}
