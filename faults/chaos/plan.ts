// The nemesis's schedule, drawn from a seeded PRNG before the run starts: which fault, on which
// server, when, and for how long. Pure, so the same --seed and --seconds give the same schedule.
import { seeded, type Random } from './prng.js';

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
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** What a replicated cluster adds to the menu. A single cluster's menu keeps its order and weights, so its seeds give the same schedules. */
const REPLICATED_ONLY: ReadonlySet<FaultKind> = new Set(['failover-redis', 'kill-zookeeper-leader']);
/** The failover replaces the plain stop: a master stopped past Sentinel's down-after is a failover anyway. */
const SINGLE_ONLY: ReadonlySet<FaultKind> = new Set(['stop-redis']);

export function faultKindsFor(replicated: boolean): FaultKind[] {
  return FAULT_KINDS.filter((k) => (replicated ? !SINGLE_ONLY.has(k) : !REPLICATED_ONLY.has(k)));
}

/** What the plan draws from: the cluster's shape and the bounds of each fault. */
export interface PlanShape {
  instances: number;
  redlockMasters: number;
  seconds: number;
  seed: number;
  /** Sentinel and a ZooKeeper ensemble: their faults join the menu. */
  replicated?: boolean;
}

export interface PlannedFault {
  /** ms after the workload starts */
  atMs: number;
  kind: FaultKind;
  /** 'app-1', 'redis', 'redlock-3', 'mysql', 'zookeeper' */
  target: string;
  /** ms from injection to heal */
  forMs: number;
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
};

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
  return [kind.slice(kind.indexOf('-') + 1)];
}

export function planFaults(shape: PlanShape): PlannedFault[] {
  const r = seeded(shape.seed);
  const kinds = faultKindsFor(shape.replicated ?? false);
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
    plan.push({ atMs: t, kind, target, forMs });
    busyUntil.set(target, t + forMs + (isKill(kind) ? RESTART_SLACK_MS : 0));
  }
  return plan;
}
