// The lab's cluster between cases: every server running and no instance left stopped, whatever the
// previous case did (or failed to undo).
import type { RunningCluster, ServerHandle } from '../src/cluster/cluster.js';
import { isStopped, resume } from './process-state.js';
import { waitHealthy } from './service.js';

/**
 * How long an instance may take to find its dependencies again once they all run: a Sentinel
 * failover it follows, a ZooKeeper session it re-establishes, connections in their reconnect backoff.
 */
const HEALTHY_BOUND_MS = 30_000;

/** An app instance as the scenarios address it: its URL, its server handle, a label for the report. */
export interface Instance {
  index: number;
  base: string;
  via: string;
  server: ServerHandle;
}

export function instance(cluster: RunningCluster, index: number): Instance {
  const server = cluster.servers.instances[index];
  const base = cluster.info.instances[index];
  if (!server || !base) throw new Error(`the lab cluster has no instance ${index}`);
  return { index, base, via: `app-${index}`, server };
}

export function instances(cluster: RunningCluster): Instance[] {
  return cluster.servers.instances.map((_s, i) => instance(cluster, i));
}

/** The pid of a running instance; throws when it is not running (a scenario needs it to signal it). */
export function pidOf(i: Instance): number {
  const pid = i.server.pid;
  if (pid === undefined) throw new Error(`${i.via} is not running`);
  return pid;
}

/** Every server of the cluster, data servers first. */
function allServers(cluster: RunningCluster): ServerHandle[] {
  const s = cluster.servers;
  return [s.mysql, s.redis, ...(s.redisReplica ? [s.redisReplica] : []), ...s.sentinels, ...s.redlock, ...s.zookeeperEnsemble, ...s.instances, s.nginx];
}

const down = (servers: ServerHandle[]) => servers.filter((server) => server.pid === undefined);

/** Resumes every stopped instance, then starts whatever is down (data servers first, an ensemble's nodes together) and waits until every instance is healthy. */
export async function ensureReady(cluster: RunningCluster): Promise<void> {
  resumeAll(cluster);
  const s = cluster.servers;
  for (const server of down([s.mysql, s.redis, ...(s.redisReplica ? [s.redisReplica] : []), ...s.sentinels, ...s.redlock])) await server.start();
  await Promise.all(down(s.zookeeperEnsemble).map((z) => z.start()));
  for (const server of down([...s.instances, s.nginx])) await server.start();
  // Running is not ready: an instance whose Redis just failed over may still be reconnecting, and
  // a reset or a GET /sales sent to it then would be refused.
  await Promise.all(instances(cluster).map((i) => waitHealthy(i.base, HEALTHY_BOUND_MS)));
}

/** SIGCONT for every server that is stopped (instances, and a data server lost-reply froze), so no case leaves one frozen behind it. */
export function resumeAll(cluster: RunningCluster): void {
  for (const server of allServers(cluster)) {
    if (server.pid !== undefined && isStopped(server.pid)) resume(server.pid);
  }
}

/**
 * Lets go each of `of` found stopped and names it (its `via`), in order: a request nginx resent
 * stops the instance it reaches at the same hook as the original, which no other request carries.
 */
export function releaseStopped(of: readonly Instance[]): string[] {
  const released: string[] = [];
  for (const i of of) {
    if (i.server.pid !== undefined && isStopped(i.server.pid)) {
      released.push(i.via);
      resume(i.server.pid);
    }
  }
  return released;
}

/** The URL of an instance that runs (for resets and GET /sales while another is down). */
export function liveBase(cluster: RunningCluster): string {
  const i = instances(cluster).find((x) => x.server.pid !== undefined && !isStopped(x.server.pid));
  if (!i) throw new Error('no app instance is running');
  return i.base;
}
