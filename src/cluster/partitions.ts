// The native cluster's network (src/net/network.ts's one protocol): the recorded cluster's, for
// `npm run cluster -- partition|heal|status|rtt` and the live page, or that of a cluster this process
// started. Every cut and heal is recorded with its time in <dir>/partitions.jsonl, so a run's history
// can line cuts up with holds. Also the cluster's names for its servers (app-0… for the instances).
import path from 'node:path';
import type { HostsLayout } from '../net/hosts.js';
import { network, type Network } from '../net/network.js';
import { layoutOfInfo, NO_LINKS, resolveDir, type RunningCluster } from './cluster.js';
import type { ClusterConfig } from './layout.js';
import { clusterRetime, type Say } from './lifecycle.js';
import { infoOf, readState } from './state.js';

const NO_HOSTS = 'the recorded cluster runs on loopback, where no link can be cut: start it with --topology hosts';

/** The recorded cluster's hosts layout, or an error saying how to get one. */
export function recordedLayout(dir: string): HostsLayout {
  const layout = recordedLayoutIfAny(dir, 'npm run cluster -- up --topology hosts');
  if (!layout) throw new Error(NO_HOSTS);
  return layout;
}

function recordedLayoutIfAny(dir: string, startWith: string): HostsLayout | undefined {
  const state = readState(dir);
  if (!state) throw new Error(`no cluster recorded in ${dir} (start one with: ${startWith})`);
  return layoutOfInfo(infoOf(state));
}

export function partitionLog(dir: string): string {
  return path.join(dir, 'partitions.jsonl');
}

/**
 * The recorded cluster's network (throws when none is recorded): its cuts recorded as the CLI's are,
 * its links retimed through the CLI's own path (`say` hears what changed), so the CLI, the live page
 * and `status` all see each other's.
 */
export function recordedNetwork(config: ClusterConfig, say: Say = () => undefined): Network {
  const dir = resolveDir(config.dir);
  const layout = recordedLayoutIfAny(dir, 'npm run cluster -- up');
  return network({
    layout,
    recordFile: partitionLog(dir),
    ...(readState(dir)?.links && { links: { rttMs: () => readState(dir)?.rttMs ?? 0, retime: (ms, names) => clusterRetime(say, ms, names, config) } }),
    noCut: NO_HOSTS,
    noDelay: NO_LINKS,
  });
}

/** The network of a cluster this process started (tests, the fault lab, the chaos run), recorded in its dir. */
export function runningNetwork(cluster: RunningCluster): Network {
  return network({
    layout: cluster.layout,
    recordFile: partitionLog(cluster.info.dir),
    ...(cluster.servers.links.length > 0 && { links: { rttMs: () => cluster.info.rttMs ?? 0, retime: (ms, names) => cluster.setRtt(ms, names) } }),
    noDelay: NO_LINKS,
  });
}

/** The cluster's name for `name`: itself, or app-<port> for app-<index> (app-0 is the first instance). */
export function serverName(layout: HostsLayout, name: string): string {
  if (layout.hosts.some((h) => h.name === name)) return name;
  const index = /^app-(\d+)$/.exec(name)?.[1];
  const apps = layout.hosts.filter((h) => h.name.startsWith('app-'));
  const app = index !== undefined ? apps[Number(index)] : undefined;
  if (app) return app.name;
  throw new Error(`no server "${name}" (servers: ${layout.hosts.map((h) => h.name).join(', ')}; app-0… name the instances in order)`);
}

/** "app-0,app-1" → the cluster's names. */
export function serverGroup(layout: HostsLayout, list: string): string[] {
  const names = list
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  if (names.length === 0) throw new Error('an empty group of servers');
  return names.map((n) => serverName(layout, n));
}

/** The lock services a holder may be cut from (the live lab's partition buttons and its tour). */
export type LockService = 'redis' | 'zookeeper';

/** The servers a lock service runs on: the main Redis, or the ZooKeeper server (every node of an ensemble). */
export function lockServiceServers(layout: HostsLayout, service: LockService): string[] {
  const names = layout.hosts.map((h) => h.name);
  return service === 'redis' ? names.filter((n) => n === 'redis') : names.filter((n) => n === 'zookeeper' || n.startsWith('zookeeper-'));
}
