// The servers a live lab races against and faults: the recorded native cluster (`npm run live`),
// or a cluster a test started itself. Either way: addresses, and handles to crash and restart.
import type { ClusterInfo, RunningCluster, ServerHandle } from '../src/cluster/cluster.js';
import { recordedHandle } from '../src/cluster/lifecycle.js';
import type { ClusterConfig } from '../src/config.js';

/** A server the lab may freeze (by pid), crash and start again. */
export interface Proc {
  readonly name: string;
  pid(): number | undefined;
  kill(): Promise<void>;
  start(): Promise<void>;
}

export interface LabServers {
  info: ClusterInfo;
  topology: 'single' | 'replicated';
  /** the app instances, in the order of info.instances */
  instances: Proc[];
  redlock: Proc[];
  /** the standalone ZooKeeper, or the ensemble's first node */
  zookeeper: Proc;
}

function fromHandle(h: ServerHandle): Proc {
  return { name: h.name, pid: () => h.pid, kill: () => h.kill(), start: () => h.start() };
}

/** A cluster this process started (tests). */
export function runningServers(cluster: RunningCluster): LabServers {
  const s = cluster.servers;
  return {
    info: cluster.info,
    topology: s.redisReplica ? 'replicated' : 'single',
    instances: s.instances.map(fromHandle),
    redlock: s.redlock.map(fromHandle),
    zookeeper: fromHandle(s.zookeeper),
  };
}

/** The recorded cluster `npm run cluster -- up` (and `npm run live`) started, detached. */
export function recordedServers(info: ClusterInfo, config: ClusterConfig): LabServers {
  const handle = (name: string) => recordedHandle(name, config);
  return {
    info,
    topology: config.replicated ? 'replicated' : 'single',
    instances: config.ports.instances.map((port) => handle(`app-${port}`)),
    redlock: config.ports.redlock.map((_p, i) => handle(`redlock-${i}`)),
    zookeeper: handle('zookeeper'),
  };
}
