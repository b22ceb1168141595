// Partitions in Jepsen's shape: a grudge maps each node to the nodes it will not hear from. Each
// shape is a small pure function from the node list to a grudge; one applier (partition.ts) turns
// any grudge into firewall rules, and one protocol (network.ts) puts it in force, so the CLI, the
// fault lab, the nemesis and the live page share one model.
import { shuffled, unseeded, type Random } from '../random.js';

/** node → the nodes whose packets it drops. Nodes that drop nothing may be absent. */
export type Grudge = Record<string, string[]>;

function add(grudge: Grudge, node: string, from: readonly string[]): void {
  const set = new Set([...(grudge[node] ?? []), ...from.filter((f) => f !== node)]);
  if (set.size > 0) grudge[node] = [...set].sort();
}

/** Every node drops every node outside its own component. */
export function complete(components: readonly (readonly string[])[]): Grudge {
  const grudge: Grudge = {};
  const all = components.flat();
  for (const component of components)
    for (const node of component)
      add(
        grudge,
        node,
        all.filter((n) => !component.includes(n)),
      );
  return grudge;
}

/** Both ways between two groups: neither hears the other. */
export function cut(a: readonly string[], b: readonly string[]): Grudge {
  const grudge: Grudge = {};
  for (const n of a) add(grudge, n, b);
  for (const n of b) add(grudge, n, a);
  return grudge;
}

/** One way: what `from` sends no longer reaches `to`; `from` still hears `to`. */
export function oneWay(from: readonly string[], to: readonly string[]): Grudge {
  const grudge: Grudge = {};
  for (const n of to) add(grudge, n, from);
  return grudge;
}

/** One node alone on its side. */
export function isolate(nodes: readonly string[], node: string): Grudge {
  if (!nodes.includes(node)) throw new Error(`isolate: no node ${node}`);
  return complete([[node], nodes.filter((n) => n !== node)]);
}

/** A random halving: the smaller half (⌊n/2⌋ nodes) against the rest. */
export function halves(nodes: readonly string[], random: Random = unseeded): Grudge {
  const order = shuffled(nodes, random);
  const k = Math.floor(order.length / 2);
  return complete([order.slice(0, k), order.slice(k)]);
}

/** Two halves that cannot hear each other, and one node that hears, and is heard by, both. */
export function bridge(nodes: readonly string[], random: Random = unseeded): Grudge {
  if (nodes.length < 3) throw new Error('bridge needs three nodes or more');
  const order = shuffled(nodes, random);
  const k = Math.floor(order.length / 2);
  return cut(order.slice(0, k), order.slice(k + 1));
}

/**
 * Majorities ring: the nodes on a ring in random order, each hearing the ⌊n/2⌋+1 nodes around it
 * (itself in the middle) and nothing else. Every node sees a majority, and no two see the same one.
 */
export function majoritiesRing(nodes: readonly string[], random: Random = unseeded): Grudge {
  const ring = shuffled(nodes, random);
  const n = ring.length;
  const majority = Math.floor(n / 2) + 1;
  const before = Math.floor((majority - 1) / 2);
  const grudge: Grudge = {};
  ring.forEach((node, i) => {
    const heard = new Set(Array.from({ length: majority }, (_v, k) => ring[(i - before + k + n) % n] as string));
    add(
      grudge,
      node,
      ring.filter((m) => !heard.has(m)),
    );
  });
  return grudge;
}

/** A random halving cut one way: what the smaller half sends no longer reaches the rest. */
export function oneWayHalves(nodes: readonly string[], random: Random = unseeded): Grudge {
  const order = shuffled(nodes, random);
  const k = Math.floor(order.length / 2);
  return oneWay(order.slice(0, k), order.slice(k));
}

/** Two groups cut both ways, or one way (what the first sends no longer reaches the second). */
export function groups(a: readonly string[], b: readonly string[], oneWayOnly: boolean): Grudge {
  return oneWayOnly ? oneWay(a, b) : cut(a, b);
}

/** The shapes a partition can be drawn in over a list of nodes (the CLI's --shape, the nemesis's partition-SHAPE). */
export const PARTITION_SHAPES = ['halves', 'majorities-ring', 'bridge', 'isolate', 'one-way'] as const;
export type PartitionShape = (typeof PARTITION_SHAPES)[number];

/** The grudge a shape makes over `nodes` (isolate: the first node alone). */
export function shapeGrudge(shape: PartitionShape, nodes: readonly string[], random: Random = unseeded): Grudge {
  switch (shape) {
    case 'halves':
      return halves(nodes, random);
    case 'majorities-ring':
      return majoritiesRing(nodes, random);
    case 'bridge':
      return bridge(nodes, random);
    case 'isolate':
      return isolate(nodes, nodes[0] as string);
    case 'one-way':
      return oneWayHalves(nodes, random);
  }
}

/** Several grudges in force at once: each node drops what any of them has it drop. */
export function unionOfGrudges(grudges: readonly Grudge[]): Grudge {
  const union: Grudge = {};
  for (const g of grudges) for (const [node, from] of Object.entries(g)) union[node] = [...new Set([...(union[node] ?? []), ...from])].sort();
  return union;
}

/** Whether `a`'s packets reach `b` under the grudge. */
export function hears(grudge: Grudge, b: string, a: string): boolean {
  // Stryker disable next-line ArrayDeclaration: a node absent from the grudge drops nothing; a placeholder list holds no node's name either
  return !(grudge[b] ?? []).includes(a);
}

/** The nodes a grudge names, as droppers or dropped. */
export function nodesOf(grudge: Grudge): string[] {
  return [...new Set([...Object.keys(grudge), ...Object.values(grudge).flat()])].sort();
}

/** "app-0 ✕ redis; redis ✕ app-0": who drops whom, one entry per node, for logs and reports. */
export function describeGrudge(grudge: Grudge): string {
  const entries = Object.entries(grudge).filter(([, from]) => from.length > 0);
  return entries.length === 0 ? 'no partition' : entries.map(([node, from]) => `${node} drops ${from.join(',')}`).join('; ');
}
