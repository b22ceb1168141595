// The partition model, pure: the benchmark subnet chosen clear of the machine's networks, the hosts
// layout, and Jepsen's shapes as grudges (who drops whom).
import { describe, expect, it } from 'vitest';
import { bridge, complete, cut, describeGrudge, halves, hears, isolate, majoritiesRing, oneWay, type Grudge } from '../../src/net/grudge.js';
import { planHostsLayout } from '../../src/net/hosts.js';
import { hostAddress, overlaps, parseCidr, pickSubnet } from '../../src/net/subnet.js';
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
    const g = halves(NODES, seeded(7).next);
    const sides = new Map<string, string>();
    for (const n of NODES) sides.set(n, JSON.stringify([n, ...NODES.filter((m) => m !== n && hears(g, n, m))].sort()));
    const distinct = [...new Set(sides.values())].map((s) => JSON.parse(s) as string[]);
    expect(distinct.map((d) => d.length).sort()).toEqual([2, 3]);
    expect(complete(distinct)).toEqual(g);
  });

  it('bridge: two halves that cannot hear each other, one node that hears and is heard by all', () => {
    const g = bridge(NODES, seeded(11).next);
    const bridges = NODES.filter((n) => NODES.every((m) => m === n || (hears(g, n, m) && hears(g, m, n))));
    expect(bridges).toHaveLength(1);
    const others = NODES.filter((n) => n !== bridges[0]);
    expect(heardPairs(g, others)).toHaveLength(2 * 2 * 1); // two pairs of two, each pair both ways
  });

  it('majorities ring: every node hears a majority, and no two hear the same one', () => {
    for (const seed of [1, 2, 3]) {
      const g = majoritiesRing(NODES, seeded(seed).next);
      const views = NODES.map((n) => [n, ...NODES.filter((m) => m !== n && hears(g, n, m))].sort().join(','));
      for (const v of views) expect(v.split(',')).toHaveLength(3);
      expect(new Set(views).size).toBe(NODES.length);
      // symmetric: a node hears exactly those that hear it
      for (const a of NODES) for (const b of NODES) expect(hears(g, a, b)).toBe(hears(g, b, a));
    }
  });

  it('a seed gives the same shape again', () => {
    expect(halves(NODES, seeded(42).next)).toEqual(halves(NODES, seeded(42).next));
  });
});
