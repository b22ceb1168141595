// The network protocol's rules on real namespaces, without servers (a second or two, so it runs in
// the fast tier): a partition's DROP rules land in exactly the namespaces its grudge names; a heal
// leaves no rule in any namespace; a new partition that names fewer nodes than the last leaves none
// behind in the nodes it no longer names. Read back with iptables itself, not through the model.
// Needs root (CAP_NET_ADMIN), as the hosts topology does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cut, isolate, type Grudge } from '../../src/net/grudge.js';
import { chooseHostsLayout, createHosts, hasNetAdmin, hostsLeft, removeHosts, type HostsLayout } from '../../src/net/hosts.js';
import { runCommand } from '../../src/net/command.js';
import { network, type Network } from '../../src/net/network.js';

const NODES = ['a', 'b', 'c', 'd'];

/** Each namespace's INPUT DROP rules as iptables prints them, by node: what is really in force. */
async function rulesByNode(layout: HostsLayout): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const h of layout.hosts) {
    const rules = (await runCommand('ip', ['netns', 'exec', h.namespace, 'iptables', '-S'])).stdout;
    out[h.name] = rules.split('\n').filter((line) => /-j DROP/.test(line));
  }
  return out;
}

/** The DROP rules a grudge should leave, by node, from the layout's addresses. */
function expectedRules(layout: HostsLayout, grudge: Grudge): Record<string, string[]> {
  const address = (name: string) => layout.hosts.find((h) => h.name === name)?.address;
  return Object.fromEntries(layout.hosts.map((h) => [h.name, (grudge[h.name] ?? []).map((n) => `-A INPUT -s ${address(n)}/32 -j DROP`)]));
}

describe.skipIf(!hasNetAdmin())('the network protocol on real namespaces (needs root)', () => {
  let layout: HostsLayout;
  let net: Network;

  beforeAll(async () => {
    layout = await chooseHostsLayout(NODES);
    await createHosts(layout);
    net = network({ layout });
  });
  afterAll(async () => {
    if (!layout) return;
    await removeHosts(layout);
    expect(await hostsLeft(layout)).toEqual([]);
  });

  it('puts a partition in force in exactly the namespaces its grudge names, and reads it back', async () => {
    const grudge = cut(['a', 'b'], ['c', 'd']);
    await net.partition(grudge);
    expect(await rulesByNode(layout)).toEqual(expectedRules(layout, grudge));
    expect(await net.inForce()).toEqual(grudge);
  });

  it('a heal leaves no rule in any namespace', async () => {
    await net.partition(cut(['a'], ['b', 'c', 'd']));
    await net.heal();
    expect(await rulesByNode(layout)).toEqual(expectedRules(layout, {}));
    expect(await net.inForce()).toEqual({});
  });

  it('a narrower partition replaces a wider one: the nodes it no longer names keep no rule', async () => {
    await net.partition(isolate(NODES, 'a'));
    const narrower = cut(['b'], ['c']);
    await net.partition(narrower);
    const rules = await rulesByNode(layout);
    expect(rules).toEqual(expectedRules(layout, narrower));
    expect(rules.a).toEqual([]);
    expect(rules.d).toEqual([]);
    await net.heal();
  });

  it('writes only the namespaces whose table changes; a rule it did not write is replaced', async () => {
    const ns = (name: string) => layout.hosts.find((h) => h.name === name)!.namespace;
    const address = (name: string) => layout.hosts.find((h) => h.name === name)!.address;
    await net.partition(cut(['a'], ['b']));
    // A SYN from b that a's rule drops: its counter, which a rewrite of a's table would zero.
    await runCommand('ip', ['netns', 'exec', ns('b'), 'timeout', '0.3', 'bash', '-c', `echo > /dev/tcp/${address('a')}/9`]).catch(() => undefined);
    const dropped = async () => (await runCommand('ip', ['netns', 'exec', ns('a'), 'iptables', '-L', 'INPUT', '-v', '-x', '-n'])).stdout;
    expect(await dropped()).toMatch(/^\s*[1-9]\d*\s+\d+\s+DROP/m);
    await runCommand('ip', ['netns', 'exec', ns('d'), 'iptables', '-A', 'OUTPUT', '-d', address('c'), '-j', 'DROP']);
    const grudge = { ...cut(['a'], ['b']), c: [] };
    await net.partition(grudge);
    expect(await dropped(), "a's table, unchanged, was not written").toMatch(/^\s*[1-9]\d*\s+\d+\s+DROP/m);
    const printed = (await runCommand('ip', ['netns', 'exec', ns('d'), 'iptables', '-S'])).stdout;
    expect(printed, "d's foreign rule is gone").not.toMatch(/OUTPUT -d/);
    await net.heal();
  });

  it('refuses a grudge naming a node the layout does not have, and changes nothing', async () => {
    const before = await rulesByNode(layout);
    await expect(net.partition({ a: ['zz'] })).rejects.toThrow(/no such server: zz/);
    expect(await rulesByNode(layout)).toEqual(before);
  });

  it('says why where nothing can be cut or slowed', async () => {
    const none = network({});
    await expect(none.partition({})).rejects.toThrow(/hosts topology/);
    await expect(none.slow(2)).rejects.toThrow(/forwarders/);
    expect(none.delayable).toBe(false);
    expect(none.rttMs()).toBe(0);
  });
});
