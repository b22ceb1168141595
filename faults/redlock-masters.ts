// The RedLock masters' persistence and restart delay, switched by the lab between cases: the mode
// the cluster launches them with, applied to the running masters too (CONFIG SET), so no restart
// is needed to change it.
import type { RedlockMastersConfig } from '../src/cluster/layout.js';
import type { RunningCluster, ServerHandle } from '../src/cluster/cluster.js';
import { pollUntil } from '../src/time.js';
import { redisAt } from './replication.js';

export async function setRedlockMasters(cluster: RunningCluster, mode: RedlockMastersConfig): Promise<void> {
  cluster.redlockMasters.persistence = mode.persistence;
  cluster.redlockMasters.restartDelayMs = mode.restartDelayMs;
  await Promise.all(
    cluster.servers.redlock.map(async (server) => {
      const client = await redisAt(cluster, server.port);
      try {
        if (mode.persistence === 'fsync') {
          await client.config('SET', 'appendfsync', 'always');
          await client.config('SET', 'appendonly', 'yes');
          // Turning the AOF on rewrites it from the data set first; only then is every write in it.
          const written = await pollUntil(
            async () => {
              const info = await client.info('persistence');
              return /aof_enabled:1/.test(info) && /aof_rewrite_in_progress:0/.test(info) && !/aof_rewrite_scheduled:1/.test(info);
            },
            10_000,
            20,
          );
          if (!written) throw new Error(`${server.name}: the append-only file was not written within 10 s`);
        } else {
          await client.config('SET', 'appendonly', 'no');
        }
      } finally {
        client.disconnect();
      }
    }),
  );
}

/**
 * Waits until the instance listening on `instancePort` has its RedLock connection to every running
 * master (seen in the master's CLIENT LIST by its name), so its next attempt asks each of them; an
 * instance still reconnecting to a restarted master would count it as unreachable.
 */
export async function waitRedlockConnected(cluster: RunningCluster, instancePort: number, timeoutMs = 5_000): Promise<void> {
  const running = cluster.servers.redlock.filter((m) => m.pid !== undefined);
  const connected = await pollUntil(
    async () => (await Promise.all(running.map((m) => hasClient(cluster, m, `app-${instancePort}:redlock-`)))).every(Boolean),
    timeoutMs,
    50,
  );
  if (!connected) throw new Error(`app-${instancePort} did not connect to every running RedLock master within ${timeoutMs} ms`);
}

async function hasClient(cluster: RunningCluster, server: ServerHandle, namePrefix: string): Promise<boolean> {
  const client = await redisAt(cluster, server.port).catch(() => undefined);
  if (!client) return false;
  try {
    const list = (await client.call('CLIENT', 'LIST', 'TYPE', 'normal')) as string;
    return list.split('\n').some((line) => / name=(\S+)/.exec(line)?.[1]?.startsWith(namePrefix));
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
