// The nemesis's schedule, drawn from a seeded PRNG before the run starts: which fault, on which
// server, when, and for how long. Pure, so the same --seed and --seconds give the same schedule.
import { PARTITION_SHAPES, shapeGrudge, type Grudge } from '../../src/net/grudge.js';
import { seeded, type Random } from '../../src/random.js';

export const FAULT_KINDS = [
  'freeze-instance',
  'kill-instance',
  'pause-holder',
  'freeze-redis',
  'stop-redis',
  'freeze-redlock',
  'kill-redlock',
  'freeze-mysql',
  'kill-mysql',
  'freeze-zookeeper',
  'kill-zookeeper',
  // the replicated topology's own: drawn only there
  'failover-redis',
  'kill-zookeeper-leader',
  // the hosts topologies' own (a network namespace per server): Jepsen's partition shapes
  'partition-halves',
  'partition-majorities-ring',
  'partition-bridge',
  'partition-isolate',
  'partition-one-way',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** What a replicated cluster adds to the menu. A single cluster's menu keeps its order and weights, so its seeds give the same schedules. */
const REPLICATED_ONLY: ReadonlySet<FaultKind> = new Set(['failover-redis', 'kill-zookeeper-leader']);
/** The failover replaces the plain stop: a master stopped past Sentinel's down-after is a failover anyway. */
const SINGLE_ONLY: ReadonlySet<FaultKind> = new Set(['stop-redis']);

export const isPartitionKind = (kind: string): boolean => kind.startsWith('partition-');

/** The menu: partitions only where links can be cut (hosts), so the loopback topologies' seeds keep their schedules. */
export function faultKindsFor(replicated: boolean, hosts = false): FaultKind[] {
  return FAULT_KINDS.filter((k) => (replicated ? !SINGLE_ONLY.has(k) : !REPLICATED_ONLY.has(k)) && (hosts || !isPartitionKind(k)));
}

/** The lane a partition is drawn on and the name the plan gives it: it strikes links, not one server. */
export const NETWORK_TARGET = 'network';

/** What the plan draws from: the cluster's shape and the bounds of each fault. */
export interface PlanShape {
  instances: number;
  redlockMasters: number;
  seconds: number;
  seed: number;
  /** Sentinel and a ZooKeeper ensemble: their faults join the menu. */
  replicated?: boolean;
  /**
   * The hosts topology: the nodes a partition is drawn over (app-0… for the instances, then the
   * servers by the cluster's names); partitions join the menu.
   */
  partitionNodes?: readonly string[];
}

export interface PlannedFault {
  /** ms after the workload starts */
  atMs: number;
  kind: FaultKind;
  /** 'app-1', 'redis', 'redlock-3', 'mysql', 'zookeeper' */
  target: string;
  /** ms from injection to heal */
  forMs: number;
  /** A partition's grudge over PlanShape.partitionNodes: node → the nodes it will not hear. */
  grudge?: Grudge;
}

/** Each fault heals after 1–8 s; a new one starts every 1–4 s; at most 3 at once, at most 2 of them on instances. */
export const FAULT_BOUNDS = { minMs: 1_000, maxMs: 8_000, gapMinMs: 1_000, gapMaxMs: 4_000, atOnce: 3, instancesAtOnce: 2 } as const;

/** How long a target stays busy beyond its heal in the plan: a restart's own time (a RedLock master's delay included). */
const RESTART_SLACK_MS = 8_000;

/** Instance faults weigh most: they are where holders live. */
const WEIGHTS: Readonly<Record<FaultKind, number>> = {
  'freeze-instance': 3,
  'kill-instance': 2,
  'pause-holder': 3,
  'freeze-redis': 1,
  'stop-redis': 1,
  'freeze-redlock': 1,
  'kill-redlock': 1,
  'freeze-mysql': 1,
  'kill-mysql': 1,
  'freeze-zookeeper': 1,
  'kill-zookeeper': 1,
  'failover-redis': 2,
  'kill-zookeeper-leader': 1,
  'partition-halves': 1,
  'partition-majorities-ring': 1,
  'partition-bridge': 1,
  'partition-isolate': 1,
  'partition-one-way': 1,
};

/** Beyond a partition's heal, before the next may start: one partition in force at a time, with a breath between. */
const PARTITION_GAP_MS = 2_000;

function pickKind(r: Random, kinds: readonly FaultKind[]): FaultKind {
  const total = kinds.reduce((n, k) => n + WEIGHTS[k], 0);
  let x = r.next() * total;
  for (const k of kinds) {
    x -= WEIGHTS[k];
    if (x < 0) return k;
  }
  return kinds[0]!;
}

export const isInstanceTarget = (target: string): boolean => target.startsWith('app-');
const isKill = (kind: FaultKind): boolean => kind.startsWith('kill') || kind.startsWith('stop') || kind.startsWith('failover');

function targetsOf(kind: FaultKind, shape: PlanShape): string[] {
  if (kind.endsWith('instance') || kind === 'pause-holder') return Array.from({ length: shape.instances }, (_v, i) => `app-${i}`);
  if (kind.endsWith('redlock')) return Array.from({ length: shape.redlockMasters }, (_v, i) => `redlock-${i}`);
  // 'redis' and 'zookeeper' name the service; the nemesis finds its master or leader when it strikes
  if (kind === 'kill-zookeeper-leader') return ['zookeeper'];
  if (isPartitionKind(kind)) return [NETWORK_TARGET];
  return [kind.slice(kind.indexOf('-') + 1)];
}

/** A partition kind's grudge over the nodes: src/net's shape of the same name, drawn from the plan's PRNG. */
export function partitionGrudge(kind: FaultKind, nodes: readonly string[], r: Random): Grudge {
  const shape = PARTITION_SHAPES.find((s) => kind === `partition-${s}`);
  if (!shape) throw new Error(`${kind} is no partition`);
  if (shape === 'isolate') {
    // shapeGrudge isolates the first node: the drawn one goes first
    const node = r.pick(nodes);
    return shapeGrudge(shape, [node, ...nodes.filter((n) => n !== node)], r);
  }
  return shapeGrudge(shape, nodes, r);
}

export function planFaults(shape: PlanShape): PlannedFault[] {
  const r = seeded(shape.seed);
  const nodes = shape.partitionNodes ?? [];
  // a bridge needs three nodes; any hosts cluster has a dozen
  const kinds = faultKindsFor(shape.replicated ?? false, nodes.length >= 3);
  const plan: PlannedFault[] = [];
  const busyUntil = new Map<string, number>();
  // the last fault heals before the end, so the run ends with every server healed
  const endMs = shape.seconds * 1_000 - FAULT_BOUNDS.maxMs;
  for (let t = r.int(FAULT_BOUNDS.gapMinMs, FAULT_BOUNDS.gapMaxMs); t < endMs; t += r.int(FAULT_BOUNDS.gapMinMs, FAULT_BOUNDS.gapMaxMs)) {
    const kind = pickKind(r, kinds);
    const forMs = r.int(FAULT_BOUNDS.minMs, FAULT_BOUNDS.maxMs);
    const target = r.pick(targetsOf(kind, shape));
    const active = [...busyUntil].filter(([, until]) => until > t);
    const free = (busyUntil.get(target) ?? 0) <= t;
    const instancesBusy = active.filter(([name]) => isInstanceTarget(name)).length;
    if (!free || active.length >= FAULT_BOUNDS.atOnce || (isInstanceTarget(target) && instancesBusy >= FAULT_BOUNDS.instancesAtOnce)) continue;
    if (isPartitionKind(kind)) {
      plan.push({ atMs: t, kind, target, forMs, grudge: partitionGrudge(kind, nodes, r) });
      busyUntil.set(target, t + forMs + PARTITION_GAP_MS);
      continue;
    }
    plan.push({ atMs: t, kind, target, forMs });
    busyUntil.set(target, t + forMs + (isKill(kind) ? RESTART_SLACK_MS : 0));
  }
  return plan;
}
