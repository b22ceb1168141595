// Partitions in Jepsen's shape: a grudge maps each node to the nodes it will not hear from. Each
// shape is a small pure function from the node list to a grudge; one applier (partition.ts) turns
// any grudge into firewall rules, so the CLI, the fault lab and the nemesis share one model.

/** node → the nodes whose packets it drops. Nodes that drop nothing may be absent. */
export type Grudge = Record<string, string[]>;

/** A random source in [0, 1): Math.random, or the nemesis's seeded one. */
export type Random = () => number;

function shuffled<T>(items: readonly T[], random: Random): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

function add(grudge: Grudge, node: string, from: readonly string[]): void {
  const set = new Set([...(grudge[node] ?? []), ...from.filter((f) => f !== node)]);
  if (set.size > 0) grudge[node] = [...set].sort();
}

/** Every node drops every node outside its own component. */
export function complete(components: readonly (readonly string[])[]): Grudge {
  const grudge: Grudge = {};
  const all = components.flat();
  for (const component of components) for (const node of component) add(grudge, node, all.filter((n) => !component.includes(n)));
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
export function halves(nodes: readonly string[], random: Random = Math.random): Grudge {
  const order = shuffled(nodes, random);
  const k = Math.floor(order.length / 2);
  return complete([order.slice(0, k), order.slice(k)]);
}

/** Two halves that cannot hear each other, and one node that hears, and is heard by, both. */
export function bridge(nodes: readonly string[], random: Random = Math.random): Grudge {
  if (nodes.length < 3) throw new Error('bridge needs three nodes or more');
  const order = shuffled(nodes, random);
  const k = Math.floor(order.length / 2);
  return cut(order.slice(0, k), order.slice(k + 1));
}

/**
 * Majorities ring: the nodes on a ring in random order, each hearing the ⌊n/2⌋+1 nodes around it
 * (itself in the middle) and nothing else. Every node sees a majority, and no two see the same one.
 */
export function majoritiesRing(nodes: readonly string[], random: Random = Math.random): Grudge {
  const ring = shuffled(nodes, random);
  const n = ring.length;
  const majority = Math.floor(n / 2) + 1;
  const before = Math.floor((majority - 1) / 2);
  const grudge: Grudge = {};
  ring.forEach((node, i) => {
    const heard = new Set(Array.from({ length: majority }, (_v, k) => ring[(i - before + k + n) % n] as string));
    add(grudge, node, ring.filter((m) => !heard.has(m)));
  });
  return grudge;
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
