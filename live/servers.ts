// The servers a live lab races against and faults, behind one fault-driver interface: native
// processes (the recorded cluster of `npm run live`, or one a test started), driven by signals to
// their pids; or the containers of a compose stack, driven through the Docker Engine API
// (live/compose-servers.ts). The fault menu (live/faults.ts) is the same for both. On the hosts
// topology the lab may also cut links, and slow them where forwarders run: through the cluster's
// network (src/net/network.ts), the one the cluster CLI uses.
import type { ClusterInfo, RunningCluster, ServerHandle } from '../src/cluster/cluster.js';
import { recordedNetwork, runningNetwork } from '../src/cluster/partitions.js';
import type { Network } from '../src/net/network.js';
import { processState } from '../src/cluster/processes.js';
import { recordedHandle } from '../src/cluster/lifecycle.js';
import type { ClusterConfig } from '../src/cluster/layout.js';
import { pollUntil } from '../src/time.js';
import { FaultError } from './fault-error.js';

/** A server the lab may freeze and resume, crash and start again. */
export interface Proc {
  readonly name: string;
  /** Running (frozen or not); false while killed. */
  isUp(): Promise<boolean>;
  /** Stops every process of it at once (SIGSTOP, or the cgroup freezer), as a long GC pause. */
  freeze(): Promise<void>;
  resume(): Promise<void>;
  /** SIGKILL, as a crash. */
  kill(): Promise<void>;
  /** Starts it again; resolves once it is healthy. */
  start(): Promise<void>;
  /**
   * True once a request stopped its own process (a pause hook, FAULT_INJECTION=1), false after
   * waitMs. Absent where the lab cannot see that (compose: the instances run without the hooks).
   */
  stoppedItself?(waitMs: number): Promise<boolean>;
}

export interface LabServers {
  info: ClusterInfo;
  /**
   * Its links: cut on the hosts topology only (network.layout), delayed only when the cluster was
   * brought up with a round trip (network.delayable, forwarders on its links).
   */
  network: Network;
  topology: 'single' | 'replicated';
  /** the app instances, in the order of info.instances */
  instances: Proc[];
  redlock: Proc[];
  /** the standalone ZooKeeper, or the ensemble's first node */
  zookeeper: Proc;
}

/** A native server's pid (undefined while it is down), and how to crash and start it. */
interface NativeServer {
  name: string;
  pid(): number | undefined;
  kill(): Promise<void>;
  start(): Promise<void>;
}

/** A native server, by its pid: signals for freeze and resume. */
function signalled(h: NativeServer): Proc {
  let stopped: number | undefined;
  return {
    name: h.name,
    isUp: async () => h.pid() !== undefined,
    async freeze() {
      const pid = h.pid();
      if (pid === undefined) throw new FaultError(`${h.name} is not running`);
      process.kill(pid, 'SIGSTOP');
      stopped = pid;
    },
    async resume() {
      const pid = stopped ?? h.pid();
      stopped = undefined;
      if (pid !== undefined) process.kill(pid, 'SIGCONT');
    },
    kill: () => h.kill(),
    start: () => h.start(),
    async stoppedItself(waitMs) {
      const pid = h.pid();
      if (pid === undefined) return false;
      const yes = await pollUntil(() => processState(pid) === 'T', waitMs, 5);
      if (yes) stopped = pid;
      return yes;
    },
  };
}

const fromHandle = (h: ServerHandle): Proc => signalled({ name: h.name, pid: () => h.pid, kill: () => h.kill(), start: () => h.start() });

/** A cluster this process started (tests). */
export function runningServers(cluster: RunningCluster): LabServers {
  const s = cluster.servers;
  return {
    info: cluster.info,
    topology: s.redisReplica ? 'replicated' : 'single',
    network: runningNetwork(cluster),
    instances: s.instances.map(fromHandle),
    redlock: s.redlock.map(fromHandle),
    zookeeper: fromHandle(s.zookeeper),
  };
}

/** The recorded cluster `npm run cluster -- up` (and `npm run live`) started, detached. */
export function recordedServers(info: ClusterInfo, config: ClusterConfig): LabServers {
  const handle = (name: string) => signalled(recordedHandle(name, config));
  return {
    info,
    // the cluster CLI's own path and record: `npm run cluster -- status|heal|rtt` and the page see each other's
    network: recordedNetwork(config),
    topology: config.replicated ? 'replicated' : 'single',
    instances: config.ports.instances.map((port) => handle(`app-${port}`)),
    redlock: config.ports.redlock.map((_p, i) => handle(`redlock-${i}`)),
    zookeeper: handle('zookeeper'),
  };
}
