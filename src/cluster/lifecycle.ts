// The recorded native cluster (.stocklab/cluster.json): bring it up, take it down, report on it.
// One implementation for `npm run cluster`, the lab and anything else that needs a running cluster.
import { isDeepStrictEqual } from 'node:util';
import { loadClusterConfig, type ClusterConfig } from './layout.js';
import { removeHosts } from '../net/hosts.js';
import { SWEEP_GRACE_MS, type SweptProcess } from '../net/sweep.js';
import {
  clusterInfo,
  completeConfig,
  inStopOrder,
  layoutOfInfo,
  ManagedServer,
  NO_LINKS,
  resolveDir,
  restartSpec,
  startCluster,
  type RunningCluster,
} from './cluster.js';
import { isLink, linksOfRecords, retimedRecord, retimeLinks, rttOf, selectLinks } from './links.js';
import { killGroup } from './processes.js';
import { codeFingerprint } from './fingerprint.js';
import { sweepStrayServers } from './strays.js';
import { infoOf, isAlive, probe, readState, removeState, stopRecorded, writeState, type ClusterState, type RecordedServer } from './state.js';
import type { ClusterInfo } from './types.js';

export type Say = (line: string) => void;

export function printUrls(info: ClusterInfo, say: Say): void {
  say(`  nginx      ${info.nginx}`);
  say(`  instances  ${info.instances.join('  ')}`);
  say(`  mysql      mysql://${info.mysql.user}@${info.mysql.host}:${info.mysql.port}/${info.mysql.database}`);
  say(`  redis      ${info.redis}`);
  say(`  redlock    ${info.redlock.join('  ')}`);
  say(`  zookeeper  ${info.zookeeper}`);
  if (info.etcd) say(`  etcd       ${info.etcd}`);
  if (info.postgres) say(`  postgres   postgres://${info.postgres.user}@${info.postgres.host}:${info.postgres.port}/${info.postgres.database}`);
  if (info.sentinels) say(`  sentinels  ${info.sentinels.join('  ')} (master name stocklab)`);
  if (info.links) {
    const apart = info.links.filter((l) => l.rttMs !== undefined).map((l) => `${l.name} at ${l.rttMs} ms`);
    say(
      `  rtt        ${info.rttMs ?? 0} ms${apart.length > 0 ? ` (${apart.join(', ')})` : ''}: ${info.links.length} delaying forwarders, the addresses above are theirs (servers and forwarders in cluster.json)`,
    );
  }
  if (info.network)
    say(
      `  hosts      ${info.hosts?.length ?? 0} namespaces on ${info.network.bridge} ${info.network.subnet} (the machine is ${info.network.gateway}; see cluster.json)`,
    );
  say(`  data       ${info.dir}  (logs in ${info.dir}/logs)`);
}

/** The width of the name column: the longest recorded name (a link's, `link-zookeeper-1-election`, is long). */
function nameWidth(state: ClusterState): number {
  return Math.max(13, ...state.servers.map((s) => s.name.length));
}

async function stopRemains(state: ClusterState, say: Say): Promise<boolean> {
  let ok = true;
  const width = nameWidth(state);
  for (const s of state.servers) {
    try {
      const r = await stopRecorded(s);
      say(`  ${s.name.padEnd(width)} ${r === 'stopped' ? `stopped (pid ${s.pid})` : 'was not running'}`);
    } catch (err) {
      ok = false;
      say(`  ${s.name.padEnd(width)} FAILED to stop pid ${s.pid}: ${(err as Error).message}`);
    }
  }
  // A server the record does not know (its identity misread, its record lost) is found by process:
  // by its command line naming the cluster's dir, and, in the hosts topology, by the namespace it
  // runs in, which removeHosts sweeps before deleting it (issue 51).
  const sweptSay = (p: SweptProcess) => say(`  ${'(unrecorded)'.padEnd(width)} stopped pid ${p.pid}, ${p.where}: ${shortened(p.cmdline)}`);
  try {
    (await sweepStrayServers(state.dir, { graceMs: SWEEP_GRACE_MS })).forEach(sweptSay);
  } catch (err) {
    ok = false;
    say(`  ${'(unrecorded)'.padEnd(width)} FAILED to stop a server still running from ${state.dir}: ${(err as Error).message}`);
  }
  // The namespaces go once nothing runs in them (a server still running keeps its process alive, not its network).
  const layout = layoutOfInfo(infoOf(state));
  if (ok && layout) {
    try {
      (await removeHosts(layout)).forEach(sweptSay);
      say(`  network      ${layout.bridge} and ${layout.hosts.length} namespaces removed`);
    } catch (err) {
      ok = false;
      say(`  network      FAILED to remove ${layout.bridge}: ${(err as Error).message}`);
    }
  }
  return ok;
}

/** A command line cut to one readable line (mariadbd's runs to 400 characters). */
function shortened(cmdline: string, max = 120): string {
  return cmdline.length > max ? `${cmdline.slice(0, max - 1)}…` : cmdline;
}

/** Each recorded server's health: alive (the same process we started) and answering its probe. */
export async function healthOf(state: ClusterState): Promise<boolean[]> {
  const info = infoOf(state);
  return Promise.all(state.servers.map(async (s) => isAlive(s) && (await probe(s, info))));
}

/** Whether instances started with `had` run with every variable of `wanted` (an instance may have more). */
function envCovers(had: Record<string, string> | undefined, wanted: Record<string, string>): boolean {
  return Object.entries(wanted).every(([k, v]) => had?.[k] === v);
}

/**
 * Brings the recorded cluster up: keeps one that is healthy and runs this code with these settings,
 * otherwise stops what is left of it and starts a new one, detached, so it outlives this process.
 * `instanceEnv`: extra env for the app instances; a cluster whose instances lack it is restarted.
 * The caller prints its addresses (printUrls) where it wants them.
 */
export async function clusterUp(say: Say, asked: ClusterConfig = loadClusterConfig(), instanceEnv: Record<string, string> = {}): Promise<ClusterInfo> {
  const dir = resolveDir(asked.dir);
  const code = codeFingerprint();
  const state = readState(dir);
  // The hosts topology keeps the namespaces and addresses it was given, so a second `up` finds the same cluster.
  const recorded = state && infoOf(state);
  const recordedLayout = recorded && layoutOfInfo(recorded);
  let config = asked.network === 'hosts' && !asked.hosts && recordedLayout ? { ...asked, hosts: recordedLayout } : asked;
  // So are its forwarders' ports, when both it and the asked config have a round trip.
  const recordedLinks = linksOfRecords(recorded?.links);
  if (rttOf(config) > 0 && !config.links && recordedLinks) config = { ...config, links: recordedLinks };
  let wanted = clusterInfo(config);
  if (state && recorded) {
    const health = await healthOf(state);
    // Forwarders both ways: another round trip is a retiming, not another cluster.
    const anyRtt = (info: ClusterInfo) => (info.links ? { ...info, ...retimedRecord(info, -1, undefined) } : info);
    const sameConfig = isDeepStrictEqual(anyRtt(recorded), anyRtt(wanted)) && envCovers(state.instanceEnv, instanceEnv);
    const sameCode = state.code === code;
    if (sameConfig && sameCode && state.complete && health.every(Boolean)) {
      say(`cluster already up (since ${state.startedAt})`);
      if (!isDeepStrictEqual(recorded.links, wanted.links) || recorded.rttMs !== wanted.rttMs) await retimeRecorded(dir, rttOf(config), say);
      return wanted;
    }
    say(
      !sameConfig
        ? 'recorded cluster has other settings; stopping it:'
        : !sameCode
          ? 'recorded cluster runs older code; stopping it:'
          : 'recorded cluster is not fully up; stopping what is left of it:',
    );
    if (!(await stopRemains(state, say))) throw new Error(`could not stop the recorded cluster in ${dir}`);
    removeState(dir);
  }
  config = await completeConfig(config);
  wanted = clusterInfo(config);
  say(`starting the cluster in ${dir} ...`);
  // Each pid is recorded the moment it is spawned, so even if this command dies half-way
  // (Ctrl-C, a closed pipe) `down` still finds every detached server it left running.
  const startedAt = new Date().toISOString();
  let servers: RecordedServer[] = [];
  const save = (complete: boolean) => writeState(dir, { ...wanted, startedAt, code, instanceEnv, complete, servers: inStopOrder(servers) });
  save(false); // before the network is made: a crashed `up` leaves a record that `down` can clean up
  let cluster: RunningCluster;
  try {
    cluster = await startCluster({
      config,
      detached: true,
      instanceEnv,
      log: (l) => say(`  ${l}`),
      onSpawn: ({ name, port, host, identity }) => {
        servers = [...servers.filter((s) => s.name !== name), { name, port, ...(host !== '127.0.0.1' && { host }), ...identity }];
        save(false);
      },
    });
  } catch (err) {
    // startCluster already stopped what it started; make sure, then forget the records
    const left = readState(dir);
    if (left && (await stopRemains(left, say))) removeState(dir);
    throw err;
  }
  save(true);
  say('cluster up');
  return cluster.info;
}

/**
 * Changes the round trip of the recorded cluster's forwarders, all of them or those in front of the
 * named servers (rewrites their files, SIGHUPs them by their recorded pids), and records it. Throws
 * when the cluster was brought up without forwarders.
 */
async function retimeRecorded(dir: string, ms: number, say: Say, names?: readonly string[]): Promise<void> {
  const state = readState(dir);
  if (!state) throw new Error(`no cluster recorded in ${dir} (start one with: npm run cluster -- up --rtt ${ms})`);
  if (!state.links) throw new Error(NO_LINKS);
  const links = selectLinks(
    state.servers.filter((s) => isLink(s.name)),
    names,
  );
  await retimeLinks(
    dir,
    ms,
    links.map((s) => ({ name: s.name, pid: isAlive(s) ? s.pid : undefined })),
  );
  const now = readState(dir) ?? state;
  writeState(dir, { ...now, ...retimedRecord(now, ms, names) });
  say(
    names
      ? `rtt ${ms} ms on ${links.map((l) => l.name).join(', ')} (the other links keep theirs)`
      : `rtt ${ms} ms on ${links.length} links (was ${state.rttMs ?? 0} ms)`,
  );
}

/** `npm run cluster -- rtt MS [--link a,b]`: the recorded cluster's links retimed, all or the named ones. */
export async function clusterRetime(say: Say, ms: number, names?: readonly string[], config: ClusterConfig = loadClusterConfig()): Promise<void> {
  await retimeRecorded(resolveDir(config.dir), ms, say, names);
}

/**
 * Stops every recorded server (checked by start time), then whatever of the cluster the record missed,
 * found by process (see stopRemains); false when one would not stop.
 */
export async function clusterDown(say: Say, config: ClusterConfig = loadClusterConfig()): Promise<boolean> {
  const dir = resolveDir(config.dir);
  const state = readState(dir);
  if (!state) {
    say(`no cluster recorded in ${dir}; nothing to stop`);
    return true;
  }
  say('stopping the cluster:');
  if (!(await stopRemains(state, say))) return false; // keep the record so a second `down` can retry
  removeState(dir);
  say('cluster down');
  return true;
}

/** Prints each recorded server's state; true when the cluster is complete and healthy. */
export async function clusterStatus(say: Say, config: ClusterConfig = loadClusterConfig()): Promise<boolean | undefined> {
  const dir = resolveDir(config.dir);
  const state = readState(dir);
  if (!state) {
    say(`no cluster recorded in ${dir} (start one with: npm run cluster -- up)`);
    return undefined;
  }
  const health = await healthOf(state);
  const width = nameWidth(state);
  state.servers.forEach((s, i) => {
    const alive = isAlive(s);
    const word = health[i] ? 'up' : alive ? 'unhealthy' : 'down';
    say(`  ${s.name.padEnd(width)} ${word.padEnd(9)} ${s.host ?? '127.0.0.1'}:${s.port}  pid ${s.pid}`);
  });
  if (!state.complete) say('  (the `up` that started these did not finish)');
  return state.complete && health.every(Boolean);
}

/** One server of the recorded cluster, found by name: its pid now, a crash, and a start again. */
export interface RecordedHandle {
  readonly name: string;
  /** The recorded pid while that process is alive; undefined once it is gone. */
  pid(): number | undefined;
  /** SIGKILL, like a crash. */
  kill(): Promise<void>;
  /** Starts it again (detached, as `up` does) and records the new pid; resolves when healthy. */
  start(): Promise<void>;
}

/**
 * The recorded cluster's app instances, RedLock masters and ZooKeeper servers as handles, so a lab
 * can crash one and start it again in the same data dir and port, the record kept up to date.
 */
export function recordedHandle(name: string, config: ClusterConfig = loadClusterConfig()): RecordedHandle {
  const dir = resolveDir(config.dir);
  const recorded = () => readState(dir)?.servers.find((s) => s.name === name);
  return {
    name,
    pid() {
      const s = recorded();
      return s && isAlive(s) ? s.pid : undefined;
    },
    async kill() {
      const s = recorded();
      if (s && isAlive(s)) await killGroup(s.pid, name);
    },
    async start() {
      const state = readState(dir);
      if (!state) throw new Error(`no cluster recorded in ${dir}`);
      const info = infoOf(state);
      const layout = layoutOfInfo(info);
      const links = linksOfRecords(info.links);
      // The cluster as recorded: its namespaces, and its forwarders that a restarted instance must use.
      const recordedConfig = { ...config, ...(layout && { hosts: layout }), ...(links && { links, rttMs: info.rttMs }) };
      const spec = restartSpec(recordedConfig, dir, name, state.instanceEnv ?? {});
      const server = new ManagedServer(spec, {
        detached: true,
        onSpawn: ({ identity }) => {
          const now = readState(dir) ?? state;
          const servers = now.servers.map((s) => (s.name === name ? { ...s, ...identity } : s));
          writeState(dir, { ...now, servers });
        },
      });
      await server.start();
    },
  };
}
