// The fault lab's faults in Chaos Mesh's form (chaos-mesh.org/v1alpha1), where a Kubernetes form
// exists: made from the lab's own lists (the lock services a holder is cut from, RedLock's splits)
// and its partition shapes (a grudge), with each native server name turned into its pod. Each
// experiment names its scenario, so docs/kubernetes.md can give what the lab's table predicts.
import { complete, isolate, type Grudge } from '../../src/net/grudge.js';
import { APP, REPLICAS } from '../../src/kubernetes/app.js';
import { LAB, LAB_LABEL, PART_LABEL } from '../../src/kubernetes/objects.js';
import { podOf, type Overlay } from '../../src/kubernetes/topology.js';
import { LOCK_SERVICE, REDLOCK_SPLITS } from '../scenarios/partition.js';

export const CHAOS_API = 'chaos-mesh.org/v1alpha1';
/** The label Kubernetes gives each pod of a StatefulSet: its own name. */
const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const SCENARIO_ANNOTATION = 'stocklab/scenario';
/**
 * The label put by hand on the instance holding the lock (`kubectl label pod NAME stocklab/holder=true`)
 * just after its request takes the lock: the lab cuts its holder then, and no pod carries it otherwise.
 */
export const HOLDER_LABEL = 'stocklab/holder';
/** Likewise on the ZooKeeper ensemble's leader, found with `zkServer.sh status`: leadership moves, a pod name would not. */
export const LEADER_LABEL = 'stocklab/zk-leader';
/** Labels no workload carries: put on by hand before an experiment is applied. */
export const HAND_LABELS: readonly string[] = [HOLDER_LABEL, LEADER_LABEL];

export type Mode = 'one' | 'all' | 'fixed' | 'fixed-percent' | 'random-max-percent';

export interface PodSelector {
  labelSelectors?: Record<string, string>;
  expressionSelectors?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

interface Meta {
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface NetworkChaos {
  apiVersion: typeof CHAOS_API;
  kind: 'NetworkChaos';
  metadata: Meta;
  spec: {
    action: 'partition' | 'delay';
    mode: Mode;
    value?: string;
    selector: PodSelector;
    direction?: 'to' | 'from' | 'both';
    target?: { mode: Mode; value?: string; selector: PodSelector };
    delay?: { latency: string };
    duration: string;
  };
}

export interface PodChaos {
  apiVersion: typeof CHAOS_API;
  kind: 'PodChaos';
  metadata: Meta;
  spec: { action: 'pod-kill'; mode: Mode; selector: PodSelector; gracePeriod: number };
}

export type Experiment = NetworkChaos | PodChaos;

export interface ChaosFile {
  /** The file under deploy/kubernetes/chaos/, without .yaml. */
  name: string;
  /** The topology it needs. */
  overlay: Overlay;
  experiments: Experiment[];
}

/** Long enough for a lease or session to end and the others to sell; it heals by itself after. */
const DURATION = '30s';
/** The lab's round trip for a datacenter (`npm run cluster -- up --rtt 2`): half of it on each end's way out. */
export const LAB_RTT_MS = 2;

const meta = (name: string, scenario: string): Meta => ({ name, labels: { [LAB_LABEL]: LAB }, annotations: { [SCENARIO_ANNOTATION]: scenario } });
const part = (name: string): PodSelector => ({ labelSelectors: { [PART_LABEL]: name } });
const instances = (): PodSelector => part(APP);
const pods = (names: readonly string[]): PodSelector => ({ expressionSelectors: [{ key: POD_NAME_LABEL, operator: 'In', values: names.map(podName) }] });

/** A native server name as its pod's: 'zookeeper' → 'zookeeper-0', 'redlock-3' → 'redlock-3'. */
export function podName(nativeName: string): string {
  const { statefulSet, ordinal } = podOf(nativeName);
  return `${statefulSet}-${ordinal}`;
}

/** The two sides of a grudge that cuts two groups both ways (what isolate and a two-group complete make). */
export function sidesOf(grudge: Grudge): [string[], string[]] {
  const [first, ...rest] = Object.keys(grudge).sort();
  if (first === undefined) throw new Error('an empty grudge');
  const b = [...(grudge[first] ?? [])].sort();
  const a = Object.keys(grudge)
    .filter((n) => !b.includes(n))
    .sort();
  const cutBothWays = [...a, ...b].every((n) => [...(grudge[n] ?? [])].sort().join() === (a.includes(n) ? b : a).join());
  if (!cutBothWays || rest.length + 1 !== a.length + b.length) throw new Error('not a cut between two groups');
  return [a, b];
}

function partition(name: string, scenario: string, selector: PodSelector, mode: Mode, target: PodSelector, value?: string): NetworkChaos {
  return {
    apiVersion: CHAOS_API,
    kind: 'NetworkChaos',
    metadata: meta(name, scenario),
    spec: {
      action: 'partition',
      mode,
      ...(value !== undefined && { value }),
      selector,
      direction: 'both',
      target: { mode: 'all', selector: target },
      duration: DURATION,
    },
  };
}

/** partition: the holder cut both ways from each lock service the lab cuts a holder from (MySQL, the lock table's, too). */
function holderCuts(): ChaosFile[] {
  const holder: PodSelector = { labelSelectors: { [PART_LABEL]: APP, [HOLDER_LABEL]: 'true' } };
  return [...new Set(Object.values(LOCK_SERVICE))].sort().map((service) => ({
    name: `holder-cut-from-${service}`,
    overlay: 'single',
    experiments: [partition(`holder-cut-from-${service}`, 'partition', holder, 'all', part(service))],
  }));
}

/**
 * partition, RedLock 3|2: the smaller side's masters cut from every instance. The lab puts one
 * instance on each side; a Deployment's pods have no fixed names, so here all of them keep the majority.
 */
function redlockSplit(): ChaosFile {
  const sides = [...REDLOCK_SPLITS['3|2']].sort((x, y) => x.length - y.length);
  const minority = (sides[0] ?? []).map((m) => `redlock-${m}`);
  return { name: 'redlock-split-3-2', overlay: 'single', experiments: [partition('redlock-split-3-2', 'partition', instances(), 'all', pods(minority))] };
}

/**
 * redis-split-brain: the old master (and, in the lab, app-0) cut from the Sentinels, the replica
 * and the other instances. Two experiments: the servers' cut, and two instances (the lab's app-1
 * and app-2) cut from the old master; the third stays with it.
 */
function sentinelSplitBrain(): ChaosFile {
  const [oldSide, majority] = sidesOf(
    complete([
      ['redis', 'app-0'],
      ['sentinel-0', 'sentinel-1', 'sentinel-2', 'redis-replica', 'app-1', 'app-2'],
    ]),
  );
  const servers = (side: string[]) => side.filter((n) => !n.startsWith('app-'));
  const majorityApps = majority.filter((n) => n.startsWith('app-')).length;
  return {
    name: 'redis-split-brain',
    overlay: 'replicated',
    experiments: [
      partition('redis-split-brain-servers', 'redis-split-brain', pods(servers(oldSide)), 'all', pods(servers(majority))),
      partition('redis-split-brain-instances', 'redis-split-brain', instances(), 'fixed', pods(servers(oldSide)), String(Math.min(majorityApps, REPLICAS))),
    ],
  };
}

/**
 * zk-leader-partition: the leader cut off from the other nodes (the lab's isolate shape over the
 * ensemble): the labelled pod on one side, every other node of the ensemble on the other.
 */
function zkLeaderCut(): ChaosFile {
  const [alone, others] = sidesOf(isolate(['zookeeper', 'zookeeper-1', 'zookeeper-2'], 'zookeeper'));
  if (alone.length !== 1 || others.length === 0) throw new Error('zk-leader-partition: expected one node alone');
  const leader: PodSelector = { labelSelectors: { [PART_LABEL]: 'zookeeper', [LEADER_LABEL]: 'true' } };
  const rest: PodSelector = { labelSelectors: { [PART_LABEL]: 'zookeeper' }, expressionSelectors: [{ key: LEADER_LABEL, operator: 'DoesNotExist' }] };
  return { name: 'zk-leader-partition', overlay: 'replicated', experiments: [partition('zk-leader-partition', 'zk-leader-partition', leader, 'all', rest)] };
}

/** The lab's datacenter round trip on every link: each pod's packets out held half of it, so a request and its answer add the whole. */
function delayEverywhere(): ChaosFile {
  const experiment: NetworkChaos = {
    apiVersion: CHAOS_API,
    kind: 'NetworkChaos',
    metadata: meta(`delay-${LAB_RTT_MS}ms-rtt`, 'rtt'),
    spec: {
      action: 'delay',
      mode: 'all',
      selector: { labelSelectors: { [LAB_LABEL]: LAB } },
      direction: 'to',
      delay: { latency: `${LAB_RTT_MS / 2}ms` },
      duration: '10m',
    },
  };
  return { name: `delay-${LAB_RTT_MS}ms-rtt`, overlay: 'single', experiments: [experiment] };
}

/** holder-crash: an instance killed at once (kill -9: no grace, no drain). */
function instanceKill(): ChaosFile {
  const experiment: PodChaos = {
    apiVersion: CHAOS_API,
    kind: 'PodChaos',
    metadata: meta('instance-kill', 'holder-crash'),
    spec: { action: 'pod-kill', mode: 'one', selector: instances(), gracePeriod: 0 },
  };
  return { name: 'instance-kill', overlay: 'single', experiments: [experiment] };
}

export function chaosFiles(): ChaosFile[] {
  return [...holderCuts(), redlockSplit(), sentinelSplitBrain(), zkLeaderCut(), delayEverywhere(), instanceKill()];
}
