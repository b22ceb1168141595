// `npm run cluster -- partition|heal` on the recorded hosts-topology cluster: names as the cluster
// gives them (or app-0… for the instances in order) turned into a grudge, applied, and recorded with
// its time in <dir>/partitions.jsonl, so a run's history can line cuts up with holds.
import path from 'node:path';
import { bridge, cut, describeGrudge, halves, isolate, majoritiesRing, oneWay, type Grudge, type Random } from '../net/grudge.js';
import { applyGrudge, grudgeInForce, healAll, type PartitionRecord } from '../net/partition.js';
import type { HostsLayout } from '../net/hosts.js';
import { layoutOfInfo } from './cluster.js';
import { infoOf, readState } from './state.js';

export const PARTITION_SHAPES = ['halves', 'majorities-ring', 'bridge', 'isolate'] as const;
export type PartitionShape = (typeof PARTITION_SHAPES)[number];

/** The recorded cluster's hosts layout, or an error saying how to get one. */
export function recordedLayout(dir: string): HostsLayout {
  const state = readState(dir);
  if (!state) throw new Error(`no cluster recorded in ${dir} (start one with: npm run cluster -- up --topology hosts)`);
  const layout = layoutOfInfo(infoOf(state));
  if (!layout) throw new Error('the recorded cluster runs on loopback, where no link can be cut: start it with --topology hosts');
  return layout;
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
  const names = list.split(',').map((n) => n.trim()).filter(Boolean);
  if (names.length === 0) throw new Error('an empty group of servers');
  return names.map((n) => serverName(layout, n));
}

/** The grudge a shape makes over `nodes` (isolate: the first node alone). */
export function shapeGrudge(shape: PartitionShape, nodes: readonly string[], random: Random): Grudge {
  switch (shape) {
    case 'halves':
      return halves(nodes, random);
    case 'majorities-ring':
      return majoritiesRing(nodes, random);
    case 'bridge':
      return bridge(nodes, random);
    case 'isolate':
      return isolate(nodes, nodes[0] as string);
  }
}

/** Two groups cut both ways, or one way (what the first sends no longer reaches the second). */
export function groupsGrudge(a: readonly string[], b: readonly string[], oneWayOnly: boolean): Grudge {
  return oneWayOnly ? oneWay(a, b) : cut(a, b);
}

export function partitionLog(dir: string): string {
  return path.join(dir, 'partitions.jsonl');
}

export async function partitionRecorded(dir: string, grudge: Grudge): Promise<PartitionRecord> {
  return applyGrudge(recordedLayout(dir), grudge, partitionLog(dir));
}

export async function healRecorded(dir: string): Promise<PartitionRecord> {
  return healAll(recordedLayout(dir), partitionLog(dir));
}

export async function partitionInForce(dir: string): Promise<string> {
  return describeGrudge(await grudgeInForce(recordedLayout(dir)));
}

/** The lock services a holder may be cut from (the live lab's partition buttons and its tour). */
export type LockService = 'redis' | 'zookeeper';

/** The servers a lock service runs on: the main Redis, or the ZooKeeper server (every node of an ensemble). */
export function lockServiceServers(layout: HostsLayout, service: LockService): string[] {
  const names = layout.hosts.map((h) => h.name);
  return service === 'redis' ? names.filter((n) => n === 'redis') : names.filter((n) => n === 'zookeeper' || n.startsWith('zookeeper-'));
}

/** Several grudges in force at once: each node drops what any of them has it drop. */
export function unionOfGrudges(grudges: readonly Grudge[]): Grudge {
  const union: Grudge = {};
  for (const g of grudges) for (const [node, from] of Object.entries(g)) union[node] = [...new Set([...(union[node] ?? []), ...from])].sort();
  return union;
}
