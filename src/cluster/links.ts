// The cluster's delayed links (issue 38): with a round trip above 0, a forwarder process
// (src/net/forwarder-main.ts) in front of every server but nginx, and of each ensemble node's quorum
// ports, adds half of it to each direction. Each listens on the address of the server it fronts (in
// its namespace, in the hosts topology, so a partition cuts the link as it cuts the server), and the
// clients are given its port instead of the server's (reachAt in src/config.ts). Each reads its round
// trip from a file of its own, <dir>/rtt/link-NAME, so the cluster's, or one link's (one RedLock
// master far away), can change on a running cluster: rewrite the file, SIGHUP the forwarder.
import fs from 'node:fs';
import path from 'node:path';
import { hostPort, type HostPort } from '../config.js';
import { etcdMembers, etcdNames, reachAt, serverOfLink, zookeeperNames, type ClusterConfig } from './layout.js';
import { bundleOf } from '../bundle.js';
import { REPO_ROOT } from '../paths.js';
import { pollUntil } from '../time.js';
import { placementOf, type Placement } from './placement.js';
import { freePorts, isPortFreeAt } from './ports.js';
import { logTail } from './processes.js';
import type { ServerSpec } from './server.js';

/** A forwarder's server name: `link-` and what it fronts (`link-mysql`, `link-zookeeper-1-peer`). */
export const LINK_PREFIX = 'link-';

/** What one forwarder fronts: a server's name (or NAME-peer / NAME-election) and that server's own port. */
export interface LinkTarget {
  key: string;
  port: number;
}

/** A link as the record shows it: what it fronts, the server's address and the forwarder's. */
export interface LinkRecord {
  name: string;
  server: string;
  forwarder: string;
  /** Its own round trip, when it was retimed apart from the cluster's (`rtt MS --link NAME`). */
  rttMs?: number;
}

export function isLink(serverName: string): boolean {
  return serverName.startsWith(LINK_PREFIX);
}

/** The round trip a config asks for; absent is 0. */
export function rttOf(cfg: Pick<ClusterConfig, 'rttMs'>): number {
  return cfg.rttMs ?? 0;
}

/** Every server of the config a forwarder goes in front of (nginx aside: the clients' own link), and each ensemble node's quorum ports. */
export function linkTargets(cfg: ClusterConfig): LinkTarget[] {
  const p = cfg.ports;
  const rep = cfg.replicated;
  const zkNames = zookeeperNames(cfg);
  const zkClients = rep ? rep.zookeeper.map((n) => n.client) : [p.zookeeper];
  return [
    { key: 'mysql', port: p.mysql },
    { key: 'redis', port: p.redis },
    ...(rep ? [{ key: 'redis-replica', port: rep.redisReplica }, ...rep.sentinels.map((port, i) => ({ key: `sentinel-${i}`, port }))] : []),
    ...p.redlock.map((port, i) => ({ key: `redlock-${i}`, port })),
    ...zkClients.map((port, i) => ({ key: zkNames[i] as string, port })),
    ...(rep
      ? rep.zookeeper.flatMap((n, i) => [
          { key: `${zkNames[i] as string}-peer`, port: n.peer },
          { key: `${zkNames[i] as string}-election`, port: n.election },
        ])
      : []),
    ...etcdMembers(cfg).map((m, i) => ({ key: etcdNames(cfg)[i] as string, port: m.client })),
    ...(rep ? etcdMembers(cfg).map((m, i) => ({ key: `${etcdNames(cfg)[i] as string}-peer`, port: m.peer })) : []),
    { key: 'postgres', port: p.postgres },
    ...p.instances.map((port) => ({ key: `app-${port}`, port })),
  ];
}

/**
 * Every port a config's servers bind (each number under its ports and its replicated ports), so a
 * forwarder's port is never one of them. Read off the config itself, not off the linked servers: a
 * port no link fronts (etcd's peer port in the single topology) is bound all the same, and a
 * forwarder given it kept etcd from starting.
 */
export function serverPorts(cfg: Pick<ClusterConfig, 'ports' | 'replicated'>): Set<number> {
  const found = new Set<number>();
  const walk = (value: unknown): void => {
    if (typeof value === 'number') found.add(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(cfg.ports);
  walk(cfg.replicated);
  return found;
}

/**
 * The config with its forwarders' ports chosen when it asks for a round trip and has none yet (free
 * loopback ports, none of the servers'); at rtt 0, without any.
 */
export async function withLinks(cfg: ClusterConfig): Promise<ClusterConfig> {
  if (rttOf(cfg) <= 0) {
    const { links: _none, ...rest } = cfg;
    return rest;
  }
  const targets = linkTargets(cfg);
  if (cfg.links && targets.every((t) => cfg.links?.[t.key] !== undefined)) return cfg;
  const used = serverPorts(cfg);
  const ports = (await freePorts(targets.length + used.size)).filter((port) => !used.has(port));
  return { ...cfg, links: Object.fromEntries(targets.map((t, i) => [t.key, ports[i] as number])) };
}

/** The record's view of a config's links: each server's own address and its forwarder's. */
export function linkRecords(cfg: ClusterConfig): LinkRecord[] | undefined {
  if (!cfg.links) return undefined;
  return linkTargets(cfg).map((t) => {
    const host = placementOf(cfg, serverOfLink(t.key)).host;
    return { name: t.key, server: `${host}:${t.port}`, forwarder: hostPort(reachAt(cfg, t.key, t.port)) };
  });
}

/** The forwarders' ports back from a record (`up` keeps them, as it keeps the hosts layout). */
export function linksOfRecords(records: readonly LinkRecord[] | undefined): Record<string, number> | undefined {
  if (!records) return undefined;
  return Object.fromEntries(records.map((r) => [r.name, Number(r.forwarder.slice(r.forwarder.lastIndexOf(':') + 1))]));
}

/** The file the forwarder `forwarderName` (link-mysql…) reads its round trip from. */
export function rttFile(dir: string, forwarderName: string): string {
  return path.join(dir, 'rtt', forwarderName);
}

export function writeRttFile(dir: string, forwarderName: string, ms: number): void {
  fs.mkdirSync(path.join(dir, 'rtt'), { recursive: true });
  fs.writeFileSync(rttFile(dir, forwarderName), `${ms}\n`);
}

export interface ForwarderProcess {
  name: string;
  listen: HostPort;
  target: HostPort;
  dir: string;
  place?: Placement;
  /** The file its round trip is read from, at start and on SIGHUP; absent: no delay ever. */
  rttFile?: string;
  /** Healthy when this answers true; by default, once its port accepts. */
  healthy?: () => Promise<boolean>;
}

/** A forwarder (src/net/forwarder-main.ts) as a server of the cluster. */
export function forwarderSpec(f: ForwarderProcess): ServerSpec {
  const { listen, target } = f;
  return {
    name: f.name,
    port: listen.port,
    host: listen.host,
    ...(f.place?.namespace !== undefined && { namespace: f.place.namespace }),
    logFile: path.join(f.dir, 'logs', `${f.name}.log`),
    startTimeoutMs: 30_000, // many at once on 2 cores
    stopGraceMs: 5_000,
    launch: () => ({
      command: process.execPath,
      args: [
        '--enable-source-maps',
        bundleOf('src/net/forwarder-main.ts'),
        '--listen',
        hostPort(listen),
        '--target',
        hostPort(target),
        ...(f.rttFile ? ['--rtt-file', f.rttFile] : []),
      ],
      cwd: REPO_ROOT,
    }),
    healthy: f.healthy ?? (async () => !(await isPortFreeAt(listen.host, listen.port))),
  };
}

/** The forwarders of a config with links, one spec each, in front of the servers they name. */
export function linkSpecs(cfg: ClusterConfig, dir: string): ServerSpec[] {
  const links = cfg.links;
  if (!links) return [];
  return linkTargets(cfg).map((t) => {
    const place = placementOf(cfg, serverOfLink(t.key));
    const name = `${LINK_PREFIX}${t.key}`;
    return forwarderSpec({ name, listen: reachAt(cfg, t.key, t.port), target: { host: place.host, port: t.port }, dir, place, rttFile: rttFile(dir, name) });
  });
}

/** How long running forwarders get to confirm a new round trip. */
const RETIME_TIMEOUT_MS = 5_000;

/**
 * The forwarders to retime: all of them, or those in front of the named servers (`redlock-4`, or a
 * quorum port's `zookeeper-1-peer`). An unknown name is an error that lists the known ones.
 */
export function selectLinks<T extends { name: string }>(forwarders: readonly T[], names: readonly string[] | undefined): T[] {
  if (names === undefined) return [...forwarders];
  const known = forwarders.map((f) => f.name.slice(LINK_PREFIX.length));
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length > 0) throw new Error(`no link in front of ${unknown.join(', ')} (links: ${known.join(', ')})`);
  return forwarders.filter((f) => names.includes(f.name.slice(LINK_PREFIX.length)));
}

/** The record's round trips after a retiming: the cluster's (every link), or the named links' own. */
export function retimedRecord<T extends { rttMs?: number; links?: LinkRecord[] }>(
  info: T,
  ms: number,
  names: readonly string[] | undefined,
): Pick<T, 'rttMs' | 'links'> {
  const links = info.links?.map((l) => {
    if (names === undefined) {
      const { rttMs: _own, ...cluster } = l;
      return cluster;
    }
    return names.includes(l.name) ? { ...l, rttMs: ms } : l;
  });
  return { rttMs: names === undefined ? ms : info.rttMs, links };
}

/**
 * Sets the round trip of running forwarders: rewrites the file each reads, SIGHUPs each (by the
 * pid the cluster started or recorded), and waits until each has logged the new value.
 */
export async function retimeLinks(dir: string, ms: number, forwarders: readonly { name: string; pid: number | undefined }[]): Promise<void> {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`a round trip is a number of ms ≥ 0, got ${ms}`);
  for (const f of forwarders) writeRttFile(dir, f.name, ms);
  const confirmed = `rtt ${ms} ms`;
  const lastLine = (name: string) =>
    logTail(path.join(dir, 'logs', `${name}.log`), 3)
      .trim()
      .split('\n')
      .pop()
      ?.trim();
  for (const f of forwarders) {
    if (f.pid === undefined) throw new Error(`${f.name} is not running; its round trip cannot be changed`);
    process.kill(f.pid, 'SIGHUP');
  }
  const late = () => forwarders.filter((f) => lastLine(f.name) !== confirmed);
  const done = await pollUntil(() => late().length === 0, RETIME_TIMEOUT_MS, 20);
  if (!done)
    throw new Error(
      `no confirmation of rtt ${ms} ms within ${RETIME_TIMEOUT_MS} ms from ${late()
        .map((f) => f.name)
        .join(', ')} (see their logs in ${dir}/logs)`,
    );
}
