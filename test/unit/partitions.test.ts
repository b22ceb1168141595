// The partition model, pure: the benchmark subnet chosen clear of the machine's networks, the hosts
// layout, and Jepsen's shapes as grudges (who drops whom).
import { describe, expect, it } from 'vitest';
import { bridge, complete, cut, describeGrudge, halves, hears, isolate, majoritiesRing, nodesOf, oneWay, type Grudge } from '../../src/net/grudge.js';
import { hostOf, planHostsLayout } from '../../src/net/hosts.js';
import { hostAddress, ipv4ToNumber, numberToIpv4, overlaps, parseCidr, pickSubnet } from '../../src/net/subnet.js';
import { seeded } from '../../src/random.js';
import { serverName } from '../../src/cluster/partitions.js';

const NODES = ['n1', 'n2', 'n3', 'n4', 'n5'];

/** Who can hear whom: a → b pairs that pass. */
function heardPairs(grudge: Grudge, nodes: readonly string[]): string[] {
  return nodes.flatMap((a) => nodes.filter((b) => a !== b && hears(grudge, b, a)).map((b) => `${a}->${b}`));
}

describe('the subnet', () => {
  it('is a /24 of 198.18.0.0/15 that overlaps none of the machine networks, the default route ignored', () => {
    const taken = ['0.0.0.0/0', '127.0.0.1/8', '192.0.2.2/24', '172.17.0.1/16', '198.18.5.0/24', '198.18.6.7/32'];
    expect(pickSubnet(taken, 5)).toBe('198.18.7.0/24');
    const chosen = parseCidr(pickSubnet(taken, 5) as string);
    for (const t of taken.slice(1)) expect(overlaps(chosen, parseCidr(t))).toBe(false);
    expect(overlaps(chosen, parseCidr('198.18.0.0/15'))).toBe(true);
    // wraps around the range; nothing left when the whole range is taken
    expect(pickSubnet([], 511)).toBe('198.19.255.0/24');
    expect(pickSubnet([], 512)).toBe('198.18.0.0/24');
    expect(pickSubnet(['198.16.0.0/12'], 0)).toBeUndefined();
  });

  it('numbers hosts inside it', () => {
    expect(hostAddress('198.18.7.0/24', 1)).toBe('198.18.7.1');
    expect(() => hostAddress('198.18.7.0/24', 255)).toThrow(/outside/);
  });
});

describe('the hosts layout', () => {
  it('gives each server a namespace, an address and a veth named for the cluster, the machine .1', () => {
    const layout = planHostsLayout(['mysql', 'redis', 'app-8000', 'nginx'], 'a1b2c3', '198.18.9.0/24');
    expect(layout.gateway).toBe('198.18.9.1');
    expect(layout.bridge).toBe('sla1b2c3br');
    expect(layout.hosts.map((h) => [h.name, h.namespace, h.address, h.veth])).toEqual([
      ['mysql', 'stocklab-a1b2c3-mysql', '198.18.9.2', 'sla1b2c3v0'],
      ['redis', 'stocklab-a1b2c3-redis', '198.18.9.3', 'sla1b2c3v1'],
      ['app-8000', 'stocklab-a1b2c3-app-8000', '198.18.9.4', 'sla1b2c3v2'],
      ['nginx', 'stocklab-a1b2c3-nginx', '198.18.9.5', 'sla1b2c3v3'],
    ]);
    // Linux names links in at most 15 characters
    for (const l of [layout.bridge, ...layout.hosts.map((h) => h.veth)]) expect(l.length).toBeLessThanOrEqual(15);
    expect(serverName(layout, 'app-0')).toBe('app-8000');
    expect(serverName(layout, 'redis')).toBe('redis');
    expect(() => serverName(layout, 'app-1')).toThrow(/no server "app-1"/);
  });
});

describe("Jepsen's shapes", () => {
  it('cut: neither group hears the other; one way: only the receiving side drops', () => {
    const both = cut(['app-0'], ['redis']);
    expect(both).toEqual({ 'app-0': ['redis'], redis: ['app-0'] });
    const one = oneWay(['app-0'], ['redis']);
    expect(hears(one, 'redis', 'app-0')).toBe(false);
    expect(hears(one, 'app-0', 'redis')).toBe(true);
    expect(describeGrudge(one)).toBe('redis drops app-0');
    expect(describeGrudge({})).toBe('no partition');
  });

  it('isolate: one node hears nobody and nobody hears it', () => {
    const g = isolate(NODES, 'n3');
    expect(heardPairs(g, NODES).filter((p) => p.includes('n3'))).toEqual([]);
    expect(heardPairs(g, NODES)).toHaveLength(4 * 3);
  });

  it('halves: two sides, ⌊n/2⌋ and the rest, each whole within itself', () => {
    const g = halves(NODES, seeded(7));
    const sides = new Map<string, string>();
    for (const n of NODES) sides.set(n, JSON.stringify([n, ...NODES.filter((m) => m !== n && hears(g, n, m))].sort()));
    const distinct = [...new Set(sides.values())].map((s) => JSON.parse(s) as string[]);
    expect(distinct.map((d) => d.length).sort()).toEqual([2, 3]);
    expect(complete(distinct)).toEqual(g);
  });

  it('bridge: two halves that cannot hear each other, one node that hears and is heard by all', () => {
    const g = bridge(NODES, seeded(11));
    const bridges = NODES.filter((n) => NODES.every((m) => m === n || (hears(g, n, m) && hears(g, m, n))));
    expect(bridges).toHaveLength(1);
    const others = NODES.filter((n) => n !== bridges[0]);
    expect(heardPairs(g, others)).toHaveLength(2 * 2 * 1); // two pairs of two, each pair both ways
  });

  it('majorities ring: every node hears a majority, and no two hear the same one', () => {
    for (const seed of [1, 2, 3]) {
      const g = majoritiesRing(NODES, seeded(seed));
      const views = NODES.map((n) => [n, ...NODES.filter((m) => m !== n && hears(g, n, m))].sort().join(','));
      for (const v of views) expect(v.split(',')).toHaveLength(3);
      expect(new Set(views).size).toBe(NODES.length);
      // symmetric: a node hears exactly those that hear it
      for (const a of NODES) for (const b of NODES) expect(hears(g, a, b)).toBe(hears(g, b, a));
    }
  });

  it('a seed gives the same shape again', () => {
    expect(halves(NODES, seeded(42))).toEqual(halves(NODES, seeded(42)));
  });
});

describe('addresses and prefixes: what is accepted and what is refused', () => {
  it('reads dotted quads, ends included, and writes them back', () => {
    expect(ipv4ToNumber('0.0.0.0')).toBe(0);
    expect(ipv4ToNumber('255.255.255.255')).toBe(2 ** 32 - 1);
    expect(ipv4ToNumber('198.18.7.1')).toBe(198 * 2 ** 24 + 18 * 2 ** 16 + 7 * 256 + 1);
    expect(numberToIpv4(ipv4ToNumber('198.18.7.1'))).toBe('198.18.7.1');
  });

  it('refuses anything but four integers in 0..255, naming the text', () => {
    for (const bad of ['1.2.3', '1.2.3.4.5', '1.2.3.256', '1.2.3.-1', '1.2.3.x', '1.2.3.1.5', '256.0.0.0'])
      expect(() => ipv4ToNumber(bad), bad).toThrow(`not an IPv4 address: ${bad}`);
  });

  it('a bare address is a /32; /0 is everything; the base is masked', () => {
    expect(parseCidr('10.1.2.3')).toEqual({ base: ipv4ToNumber('10.1.2.3'), prefix: 32 });
    expect(parseCidr('10.1.2.3/0')).toEqual({ base: 0, prefix: 0 });
    expect(parseCidr('10.1.2.3/24')).toEqual({ base: ipv4ToNumber('10.1.2.0'), prefix: 24 });
  });

  it('refuses a prefix outside 0..32 or not an integer, naming the text', () => {
    for (const bad of ['10.0.0.0/33', '10.0.0.0/-1', '10.0.0.0/1.5', '10.0.0.0/x']) expect(() => parseCidr(bad), bad).toThrow(`not an IPv4 prefix: ${bad}`);
  });

  it('two ranges overlap when they share one address, in either order; adjacent ones do not', () => {
    const net = parseCidr('10.0.0.0/24');
    for (const one of ['10.0.0.255/32', '10.0.0.0/32']) {
      expect(overlaps(net, parseCidr(one)), one).toBe(true);
      expect(overlaps(parseCidr(one), net), one).toBe(true);
    }
    for (const next of ['10.0.1.0/24', '10.0.1.0/32', '9.255.255.255/32']) {
      expect(overlaps(net, parseCidr(next)), next).toBe(false);
      expect(overlaps(parseCidr(next), net), next).toBe(false);
    }
  });

  it('numbers hosts 1..254 only, integers only', () => {
    expect(hostAddress('198.18.7.0/24', 254)).toBe('198.18.7.254');
    for (const bad of [0, -1, 1.5, 255]) expect(() => hostAddress('198.18.7.0/24', bad), String(bad)).toThrow(`host number ${bad} is outside 1..254`);
  });
});

describe('the hosts layout: its id, its size, and finding a server in it', () => {
  it('takes an id of exactly six lower-case hex digits, naming a bad one', () => {
    for (const bad of ['A1B2C3', 'a1b2c', 'a1b2c3d', 'xa1b2c3', 'a1b2c3x', 'a1b2g3'])
      expect(() => planHostsLayout(['mysql'], bad, '198.18.9.0/24'), bad).toThrow(`hosts layout id must be six hex digits, got ${bad}`);
  });

  it('places up to 253 servers in its /24 (.2 to .254), and refuses one more', () => {
    const names = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`);
    expect(planHostsLayout(names(253), 'a1b2c3', '198.18.9.0/24').hosts.at(-1)?.address).toBe('198.18.9.254');
    expect(() => planHostsLayout(names(254), 'a1b2c3', '198.18.9.0/24')).toThrow('a /24 holds 253 servers, not 254');
  });

  it('finds a server by name; a server it does not place, or no layout (loopback), gives nothing', () => {
    const layout = planHostsLayout(['mysql', 'redis'], 'a1b2c3', '198.18.9.0/24');
    expect(hostOf(layout, 'redis')).toEqual({ name: 'redis', namespace: 'stocklab-a1b2c3-redis', address: '198.18.9.3', veth: 'sla1b2c3v1' });
    expect(hostOf(layout, 'nginx')).toBeUndefined();
    expect(hostOf(undefined, 'redis')).toBeUndefined();
  });
});

describe("Jepsen's shapes: randomness, edges and what a grudge names", () => {
  it('halves: the seed decides the split, and over seeds every node lands on the smaller side', () => {
    const smaller = (seed: number) => NODES.filter((n) => NODES.filter((m) => m !== n && hears(halves(NODES, seeded(seed)), n, m)).length === 1);
    const seen = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) for (const n of smaller(seed)) seen.add(n);
    expect([...seen].sort()).toEqual(NODES);
  });

  it('bridge over three nodes: over seeds, each of them is the bridge (every order can come out of the shuffle)', () => {
    const three = ['a', 'b', 'c'];
    const bridges = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) {
      const g = bridge(three, seeded(seed));
      for (const n of three) if (three.every((m) => hears(g, n, m) && hears(g, m, n))) bridges.add(n);
    }
    expect([...bridges].sort()).toEqual(three);
  });

  it('bridge needs three nodes; isolate needs a node of the list', () => {
    expect(() => bridge(['a', 'b'])).toThrow('bridge needs three nodes or more');
    expect(() => isolate(NODES, 'n9')).toThrow('isolate: no node n9');
  });

  it('a node in both groups never drops itself; a grudge names only the nodes that drop something', () => {
    expect(cut(['a', 'b'], ['b', 'c'])).toEqual({ a: ['b', 'c'], b: ['a', 'c'], c: ['a', 'b'] });
    expect(oneWay(['a', 'b'], ['b'])).toEqual({ b: ['a'] });
    expect(oneWay(['a'], ['a'])).toEqual({});
    expect(complete([['a', 'b', 'c']])).toEqual({});
  });

  it('majorities ring on 4 and 7 nodes: each node hears exactly a majority, itself included', () => {
    for (const n of [4, 7]) {
      const nodes = Array.from({ length: n }, (_, i) => `m${i}`);
      const g = majoritiesRing(nodes, seeded(n));
      for (const node of nodes)
        expect(
          nodes.filter((m) => hears(g, node, m)),
          `${n} nodes, ${node}`,
        ).toHaveLength(Math.floor(n / 2) + 1);
    }
  });

  it('nodesOf: every node named, dropping or dropped, once and sorted', () => {
    expect(nodesOf({ c: ['b', 'a'], a: ['c'] })).toEqual(['a', 'b', 'c']);
    expect(nodesOf({})).toEqual([]);
  });

  it('describes each dropping node with whom it drops; nodes that drop nothing are left out', () => {
    expect(describeGrudge({ a: ['b', 'c'], b: [], c: ['a'] })).toBe('a drops b,c; c drops a');
    expect(describeGrudge({ a: [] })).toBe('no partition');
  });
});
