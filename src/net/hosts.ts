// The hosts topology's network: every server in a network namespace of its own, joined by a veth
// pair to one private bridge per cluster, as hosts on one switch. The bridge has no uplink and
// nothing forwards or NATs it; the namespaces get no default route, so a server reaches only its
// peers and the machine, which holds the bridge's first address and so reaches every server.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { runCommand, runTolerant } from './command.js';
import { hostAddress, pickSubnet } from './subnet.js';
import { SWEEP_GRACE_MS, sweepNamespaces, type SweptProcess } from './sweep.js';

export interface NetHost {
  /** The server's name in the cluster: 'mysql', 'redis', 'app-8000', 'nginx'… */
  name: string;
  namespace: string;
  address: string;
  /** The veth end on the machine's side (its peer is eth0 inside the namespace). */
  veth: string;
}

export interface HostsLayout {
  /** Six hex digits naming this cluster's namespaces, bridge and veths, so two clusters never meet. */
  id: string;
  bridge: string;
  /** a.b.c.0/24 inside 198.18.0.0/15 */
  subnet: string;
  /** The machine's own address on the bridge. */
  gateway: string;
  hosts: NetHost[];
}

/** Where `name` listens in this layout; undefined for a server it does not place (it stays on loopback). */
export function hostOf(layout: HostsLayout | undefined, name: string): NetHost | undefined {
  return layout?.hosts.find((h) => h.name === name);
}

/** The layout for these server names (pure): .1 the machine, then one address per server in order. */
export function planHostsLayout(names: readonly string[], id: string, subnet: string): HostsLayout {
  if (!/^[0-9a-f]{6}$/.test(id)) throw new Error(`hosts layout id must be six hex digits, got ${id}`);
  if (names.length > 253) throw new Error(`a /24 holds 253 servers, not ${names.length}`);
  return {
    id,
    bridge: `sl${id}br`,
    subnet,
    gateway: hostAddress(subnet, 1),
    hosts: names.map((name, i) => ({ name, namespace: `stocklab-${id}-${name}`, address: hostAddress(subnet, i + 2), veth: `sl${id}v${i}` })),
  };
}

const CAP_NET_ADMIN = 12;

/** Whether this process may create namespaces, links and firewall rules (root, or CAP_NET_ADMIN). */
export function hasNetAdmin(): boolean {
  try {
    const hex = /^CapEff:\s*([0-9a-f]+)$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1];
    return hex !== undefined && (BigInt(`0x${hex}`) & (1n << BigInt(CAP_NET_ADMIN))) !== 0n;
  } catch {
    return false;
  }
}

/** The programs the hosts topology runs, and the Debian packages that bring them. */
export const HOSTS_TOOLS = [
  ['ip', 'iproute2'],
  ['iptables', 'iptables'],
] as const;

/** Throws at once, naming what is missing, when the hosts topology cannot be built here. */
export async function requireHostsSupport(): Promise<void> {
  if (!hasNetAdmin()) {
    throw new Error(
      'the hosts topology needs root (or CAP_NET_ADMIN) to create network namespaces, veth pairs, a bridge and iptables rules; run as root, or use the default loopback topology (--topology single)',
    );
  }
  for (const [tool, pkg] of HOSTS_TOOLS) {
    await runCommand(tool, ['-V']).catch(() => {
      throw new Error(`the hosts topology needs \`${tool}\` (Debian package ${pkg}): apt-get install ${pkg}`);
    });
  }
}

interface IpAddrInfo {
  addr_info?: { family?: string; local?: string; prefixlen?: number }[];
}
interface IpRoute {
  dst?: string;
}

/** Every IPv4 network the machine has an address in or a route to (the default route aside). */
export async function machineNetworks(): Promise<string[]> {
  const addrs = JSON.parse((await runCommand('ip', ['-j', '-4', 'addr'])).stdout) as IpAddrInfo[];
  const routes = JSON.parse((await runCommand('ip', ['-j', '-4', 'route', 'show', 'table', 'all'])).stdout) as IpRoute[];
  const fromAddrs = addrs
    .flatMap((a) => a.addr_info ?? [])
    .filter((i) => i.family === 'inet' && i.local)
    .map((i) => `${i.local}/${i.prefixlen ?? 32}`);
  const fromRoutes = routes.map((r) => r.dst).filter((d): d is string => d !== undefined && d !== 'default' && /^\d+\.\d+\.\d+\.\d+(\/\d+)?$/.test(d));
  return [...fromAddrs, ...fromRoutes];
}

/** A fresh layout: a new id and a /24 that overlaps nothing the machine has (other clusters' bridges included). */
export async function chooseHostsLayout(names: readonly string[]): Promise<HostsLayout> {
  const id = crypto.randomBytes(3).toString('hex');
  const subnet = pickSubnet(await machineNetworks(), crypto.randomInt(512));
  if (!subnet) throw new Error('every /24 of 198.18.0.0/15 overlaps an address or route of this machine');
  return planHostsLayout(names, id, subnet);
}

/** The rule that lets the bridge's members talk to each other when the host's FORWARD chain drops by default (Docker's does). */
function forwardRule(layout: HostsLayout): string[] {
  return ['FORWARD', '-i', layout.bridge, '-o', layout.bridge, '-m', 'comment', '--comment', `stocklab ${layout.id}`, '-j', 'ACCEPT'];
}

/** Builds the bridge, the namespaces and their links; on failure, removes whatever it made. */
export async function createHosts(layout: HostsLayout): Promise<void> {
  const lines = [
    `link add ${layout.bridge} type bridge`,
    `addr add ${layout.gateway}/24 dev ${layout.bridge}`,
    `link set ${layout.bridge} up`,
    ...layout.hosts.flatMap((h) => [
      `netns add ${h.namespace}`,
      `link add ${h.veth} type veth peer name eth0 netns ${h.namespace}`,
      `link set ${h.veth} master ${layout.bridge} up`,
    ]),
  ];
  try {
    await runCommand('ip', ['-batch', '-'], lines.join('\n') + '\n');
    await Promise.all(
      layout.hosts.map((h) =>
        runCommand('ip', ['-n', h.namespace, '-batch', '-'], [`addr add ${h.address}/24 dev eth0`, 'link set eth0 up', 'link set lo up', ''].join('\n')),
      ),
    );
    await runCommand('iptables', ['-I', ...forwardRule(layout)]);
  } catch (err) {
    await removeHosts(layout).catch(() => undefined);
    throw err;
  }
}

// "Cannot find device" when a link is gone before the call; "No such device" when it goes during it
// (a namespace's deletion takes its veth pair down asynchronously).
const GONE = /No such file|Cannot find device|No such device|does not exist|Bad rule|does a matching rule exist|Invalid argument/i;

/**
 * Removes every namespace, link and rule of the layout; what is already gone is skipped. A process
 * still running in one of its namespaces is stopped first (see sweep.ts) and returned: `ip netns del`
 * removes a namespace's name, not the namespace, which lives on, unseen, as long as a process is in it.
 */
export async function removeHosts(layout: HostsLayout): Promise<SweptProcess[]> {
  const swept = await sweepNamespaces(
    layout.hosts.map((h) => h.namespace),
    { graceMs: SWEEP_GRACE_MS },
  );
  // Deleting a namespace destroys the veth end inside it, and with it the pair.
  await Promise.all(layout.hosts.map((h) => runTolerant('ip', ['netns', 'del', h.namespace], GONE)));
  await Promise.all(layout.hosts.map((h) => runTolerant('ip', ['link', 'del', h.veth], GONE)));
  await runTolerant('ip', ['link', 'del', layout.bridge], GONE);
  // -D removes one copy; a crashed `up` retried may have left more than one.
  for (let i = 0; i < 5; i++) {
    try {
      await runCommand('iptables', ['-D', ...forwardRule(layout)]);
    } catch {
      break;
    }
  }
  return swept;
}

/** What of the layout still exists on the machine: namespaces, links and the forward rule (for tests and `status`). */
export async function hostsLeft(layout: HostsLayout): Promise<string[]> {
  const namespaces = (await runCommand('ip', ['netns', 'list'])).stdout;
  const links = (await runCommand('ip', ['-o', 'link'])).stdout;
  const rules = (await runCommand('iptables', ['-S', 'FORWARD'])).stdout;
  return [
    ...layout.hosts.filter((h) => new RegExp(`^${h.namespace}\\b`, 'm').test(namespaces)).map((h) => `namespace ${h.namespace}`),
    ...[layout.bridge, ...layout.hosts.map((h) => h.veth)].filter((l) => links.includes(` ${l}:`) || links.includes(` ${l}@`)).map((l) => `link ${l}`),
    ...(rules.includes(`stocklab ${layout.id}`) ? [`FORWARD rule "stocklab ${layout.id}"`] : []),
  ];
}
