// The servers a live lab races against and faults, behind one fault-driver interface: native
// processes (the recorded cluster of `npm run live`, or one a test started), driven by signals to
// their pids; or the containers of a compose stack, driven through the Docker Engine API
// (live/compose-servers.ts). The fault menu (live/faults.ts) is the same for both. On the hosts
// topology the lab may also cut links, through the one applier the cluster CLI uses.
import { layoutOfInfo, type ClusterInfo, type RunningCluster, type ServerHandle } from '../src/cluster/cluster.js';
import { lockServiceServers, partitionLog, partitionRecorded, type LockService } from '../src/cluster/partitions.js';
import type { Grudge } from '../src/net/grudge.js';
import type { HostsLayout } from '../src/net/hosts.js';
import { applyGrudge, type PartitionRecord } from '../src/net/partition.js';
import { processState } from '../src/cluster/processes.js';
import { readState } from '../src/cluster/state.js';
import { clusterRetime, recordedHandle } from '../src/cluster/lifecycle.js';
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

/** The hosts topology's links: what a lock service runs on, and how a grudge is put in force. */
export interface Partitions {
  /** the cluster's names of the servers `service` runs on */
  serversOf(service: LockService): string[];
  /** Makes `grudge` the partition in force (an empty one heals), recorded with its time in <dir>/partitions.jsonl. */
  apply(grudge: Grudge): Promise<PartitionRecord>;
}

/** The cluster's delaying forwarders (src/cluster/links.ts), which the lab may retime for a race. */
export interface Links {
  /** The round trip (ms) they add now, as the cluster's record says. */
  rttMs(): number;
  /** Retimes every link; resolves once each forwarder has confirmed it. */
  setRtt(ms: number): Promise<void>;
}

export interface LabServers {
  info: ClusterInfo;
  /** present when the cluster was brought up with a round trip (forwarders on its links): elsewhere none can be delayed */
  links?: Links;
  topology: 'single' | 'replicated';
  /** present on the hosts topology only: elsewhere no link can be cut */
  partitions?: Partitions;
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

function partitionsOf(layout: HostsLayout, apply: (grudge: Grudge) => Promise<PartitionRecord>): Partitions {
  return { serversOf: (service) => lockServiceServers(layout, service), apply };
}

const fromHandle = (h: ServerHandle): Proc => signalled({ name: h.name, pid: () => h.pid, kill: () => h.kill(), start: () => h.start() });

/** A cluster this process started (tests). */
export function runningServers(cluster: RunningCluster): LabServers {
  const s = cluster.servers;
  return {
    info: cluster.info,
    topology: s.redisReplica ? 'replicated' : 'single',
    ...(s.links.length > 0 && { links: { rttMs: () => cluster.info.rttMs ?? 0, setRtt: (ms: number) => cluster.setRtt(ms) } }),
    instances: s.instances.map(fromHandle),
    redlock: s.redlock.map(fromHandle),
    zookeeper: fromHandle(s.zookeeper),
    ...(cluster.layout && { partitions: partitionsOf(cluster.layout, (grudge) => applyGrudge(cluster.layout as HostsLayout, grudge, partitionLog(cluster.info.dir))) }),
  };
}

/** The recorded cluster `npm run cluster -- up` (and `npm run live`) started, detached. */
export function recordedServers(info: ClusterInfo, config: ClusterConfig): LabServers {
  const handle = (name: string) => signalled(recordedHandle(name, config));
  const layout = layoutOfInfo(info);
  // the cluster CLI's own path and record: `npm run cluster -- rtt MS` and the page see each other's
  const links: Links = {
    rttMs: () => readState(info.dir)?.rttMs ?? 0,
    setRtt: (ms) => clusterRetime(() => undefined, ms, undefined, config),
  };
  return {
    info,
    ...(info.links && { links }),
    topology: config.replicated ? 'replicated' : 'single',
    instances: config.ports.instances.map((port) => handle(`app-${port}`)),
    redlock: config.ports.redlock.map((_p, i) => handle(`redlock-${i}`)),
    zookeeper: handle('zookeeper'),
    // the cluster CLI's own path: `npm run cluster -- status` and `heal` see what the page cut
    ...(layout && { partitions: partitionsOf(layout, (grudge) => partitionRecorded(info.dir, grudge)) }),
  };
}
