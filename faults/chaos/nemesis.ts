// The nemesis: runs the planned faults against the lab cluster at their planned times, each healed
// after its own duration, overlapping as the plan says. Only servers of the lab's own cluster are
// signalled, by the pids their handles hold.
import type { RunningCluster, ServerHandle } from '../../src/cluster/cluster.js';
import { runningNetwork, serverName } from '../../src/cluster/partitions.js';
import { describeGrudge, type Grudge } from '../../src/net/grudge.js';
import type { HostsLayout } from '../../src/net/hosts.js';
import { pollUntil, sleep } from '../../src/time.js';
import { errorMessage } from '../errors.js';
import { startDependency, stopDependency } from '../dependencies.js';
import { isStopped, resume } from '../process-state.js';
import { redisRoles, rejoinAsReplicaOf, sentinelMasterState, waitPromoted, waitReplicaInSync, zkLeader } from '../replication.js';
import { cutsRedisFromSentinel } from './cuts.js';
import type { ChaosStrategy, FaultEvent, Request } from './history.js';
import { ChaosNetwork } from './network.js';
import { isPartitionKind, type PlannedFault } from './plan.js';
import { sendRecorded, type Recorder } from './workload.js';

/** How long a paused holder's request may take to reach the hook (a lock wait included). */
const HOOK_WAIT_MS = 5_000;
/** Sentinel's down-after (1 s), its vote and the promotion, on a loaded machine. */
const PROMOTION_BOUND_MS = 15_000;
/** The old master, restarted empty, back in sync as the new master's replica (a full resync). */
const REJOIN_BOUND_MS = 30_000;
/** A thawed master still named master, with no down flag, for this long: Sentinel (down-after 1 s) will not fail it over now. */
const SETTLED_MS = 3_000;
/** A killed server waits this long at most for the network to heal before it restarts: longer than any cut. */
const HEALED_BOUND_MS = 30_000;

export interface NemesisDeps {
  cluster: RunningCluster;
  rec: Recorder;
  /** The strategy whose turn it is (the paused holder runs it); undefined between turns. */
  current(): ChaosStrategy | undefined;
  log(line: string): void;
  /** Marks a server as struck on purpose until the fault heals: its exit is no crash. */
  strike(server: ServerHandle): ServerHandle;
  net: ChaosNetwork;
}

export function serverNamed(cluster: RunningCluster, target: string): ServerHandle {
  const s = cluster.servers;
  const [kind, index] = target.split('-');
  const server =
    kind === 'app'
      ? s.instances[Number(index)]
      : kind === 'redlock'
        ? s.redlock[Number(index)]
        : kind === 'redis'
          ? s.redis
          : kind === 'mysql'
            ? s.mysql
            : kind === 'zookeeper'
              ? s.zookeeper
              : undefined;
  if (!server) throw new Error(`the lab cluster has no server ${target}`);
  return server;
}

function freeze(server: ServerHandle): void {
  if (server.pid === undefined) throw new Error(`${server.name} is not running`);
  process.kill(server.pid, 'SIGSTOP');
}

function thaw(server: ServerHandle): void {
  if (server.pid !== undefined && isStopped(server.pid)) resume(server.pid);
}

/** Starts a server again, on a healed network; one retry, since a port may take a moment to free. */
async function restart(net: ChaosNetwork, server: ServerHandle): Promise<void> {
  await net.whenHealed(HEALED_BOUND_MS);
  try {
    await server.start();
  } catch {
    await sleep(1_000);
    await server.start();
  }
}

/**
 * A request with pause=after-acquire to the target instance: it stops itself holding the lock. The
 * heal resumes it, and keeps resuming it until its answer is in (it may reach the hook late).
 */
async function pauseHolder(d: NemesisDeps, server: ServerHandle, target: string, forMs: number, event: FaultEvent): Promise<void> {
  const s = d.current();
  const base = d.cluster.info.instances[Number(target.split('-')[1])];
  if (!s?.locks || !base || server.pid === undefined) {
    event.note = `no lock in turn (${s?.name ?? 'between turns'}): froze the instance instead`;
    freeze(server);
    await sleep(forMs);
    thaw(server);
    return;
  }
  let answered: Request | undefined;
  const holder = sendRecorded(d.rec, base, target, s, 'holder', { pause: 'after-acquire' }).then((r) => (answered = r));
  const pid = server.pid;
  await pollUntil(() => answered !== undefined || isStopped(pid), HOOK_WAIT_MS, 5);
  event.note = answered
    ? `${s.name}: the holder answered before stopping`
    : isStopped(pid)
      ? `${s.name}: holder stopped holding the lock`
      : `${s.name}: holder not stopped within ${HOOK_WAIT_MS} ms`;
  await sleep(forMs);
  while (answered === undefined) {
    if (isStopped(pid)) resume(pid);
    await Promise.race([holder, sleep(50)]);
  }
}

/**
 * The server a fault strikes: on the replicated topology 'redis' is whichever server Sentinel names
 * master now, and a leader kill finds the ensemble's leader; otherwise the target's own server.
 */
async function struckServer(d: NemesisDeps, f: PlannedFault): Promise<ServerHandle> {
  if (f.kind === 'kill-zookeeper-leader') {
    const leader = await zkLeader(d.cluster);
    if (!leader) throw new Error('the ensemble has no leader');
    return d.strike(leader);
  }
  if (f.target === 'redis' && d.cluster.servers.redisReplica) return d.strike((await redisRoles(d.cluster)).master);
  return d.strike(serverNamed(d.cluster, f.target));
}

/** Kills the master Sentinel names; once the replica is promoted and forMs passed, the old master returns as its replica. */
async function failover(d: NemesisDeps, forMs: number, event: FaultEvent): Promise<void> {
  const { master, replica } = await redisRoles(d.cluster);
  d.strike(master);
  d.strike(replica);
  await master.kill();
  const killedAt = Date.now();
  const promoted = await waitPromoted(d.cluster, replica.port, PROMOTION_BOUND_MS);
  event.note = promoted ? `${replica.name} promoted after ${Date.now() - killedAt} ms` : `${replica.name} not promoted within ${PROMOTION_BOUND_MS} ms`;
  await sleep(Math.max(0, killedAt + forMs - Date.now()));
  await restart(d.net, master);
  const newMaster = promoted ? replica : master;
  if (newMaster !== master && !(await rejoinAsReplicaOf(d.cluster, master.port, newMaster.port, REJOIN_BOUND_MS)))
    event.note += `; ${master.name} not in sync within ${REJOIN_BOUND_MS} ms`;
}

/**
 * A master frozen past Sentinel's down-after is failed over, possibly only after it was thawed; once
 * thawed it still takes writes from the clients that kept their connection to it, until Sentinel
 * makes it a replica (seconds later) and its resync drops them: the fault lasts until then. Waits
 * until the server is a replica in sync, or the master Sentinel names with no failover under way
 * for SETTLED_MS.
 */
async function settleAfterFrozenMaster(d: NemesisDeps, server: ServerHandle, event: FaultEvent, healed = 'the thaw'): Promise<void> {
  const thawedAt = Date.now();
  let calmSince: number | undefined;
  while (Date.now() - thawedAt < REJOIN_BOUND_MS) {
    const state = await sentinelMasterState(d.cluster);
    if (state && state.port !== server.port) {
      const inSync = await waitReplicaInSync(d.cluster, server.port, REJOIN_BOUND_MS);
      event.note = `${event.note ? `${event.note}; ` : ''}failed over; ${inSync ? `a replica in sync ${Date.now() - thawedAt} ms after ${healed}` : `not a replica in sync within ${REJOIN_BOUND_MS} ms`}`;
      return;
    }
    const calm = state !== undefined && !state.flags.some((f) => f === 's_down' || f === 'o_down' || f.startsWith('failover'));
    calmSince = calm ? (calmSince ?? Date.now()) : undefined;
    if (calmSince !== undefined && Date.now() - calmSince >= SETTLED_MS) return;
    await sleep(100);
  }
  event.note = `${event.note ? `${event.note}; ` : ''}Sentinel not settled within ${REJOIN_BOUND_MS} ms of ${healed}`;
}

async function inject(d: NemesisDeps, f: PlannedFault, event: FaultEvent): Promise<void> {
  if (f.kind === 'failover-redis') return failover(d, f.forMs, event);
  if (isPartitionKind(f.kind)) return partition(d, f, event);
  const server = await struckServer(d, f);
  if (server.name !== f.target && !f.target.startsWith('app-')) event.note = `on ${server.name}`;
  switch (f.kind) {
    case 'pause-holder':
      return pauseHolder(d, server, f.target, f.forMs, event);
    case 'freeze-redis':
      freeze(server);
      await sleep(f.forMs);
      thaw(server);
      if (d.cluster.servers.redisReplica) await settleAfterFrozenMaster(d, server, event);
      return;
    case 'freeze-instance':
    case 'freeze-redlock':
    case 'freeze-mysql':
    case 'freeze-zookeeper':
      freeze(server);
      await sleep(f.forMs);
      thaw(server);
      return;
    case 'stop-redis':
      // SHUTDOWN SAVE: the lab's Redis keeps no data otherwise, and a restart from empty would drop the stock key and the fences
      await stopDependency(d.cluster, 'redis');
      await sleep(f.forMs);
      await startDependency(d.cluster, 'redis');
      return;
    case 'kill-instance':
    case 'kill-redlock':
    case 'kill-mysql':
    case 'kill-zookeeper':
    case 'kill-zookeeper-leader':
      await server.kill();
      await sleep(f.forMs);
      await restart(d.net, server);
      return;
  }
}

/** The grudge by the cluster's own names: app-0… are the instances in order. */
function onLayout(layout: HostsLayout, grudge: Grudge): Grudge {
  return Object.fromEntries(Object.entries(grudge).map(([node, from]) => [serverName(layout, node), from.map((n) => serverName(layout, n))]));
}

/**
 * Cuts the links the grudge names once the previous cut has healed, heals them after forMs, and
 * records both times in the event. On the replicated topology a cut that parted a Redis server
 * from a Sentinel lasts until Sentinel has settled, as a frozen master does (healedMs then).
 */
async function partition(d: NemesisDeps, f: PlannedFault, event: FaultEvent): Promise<void> {
  const layout = d.cluster.layout;
  const grudge = f.grudge;
  if (!layout || !grudge) throw new Error('a partition needs the hosts topology (a network namespace per server)');
  const network = runningNetwork(d.cluster);
  // the next cut may come while Sentinel settles: the links are healed by then
  const master = await d.net.exclusive(async () => {
    const master = d.cluster.servers.redisReplica && cutsRedisFromSentinel(grudge) ? (await redisRoles(d.cluster)).master : undefined;
    const cutAt = Date.now();
    const cut = d.net.cutMade(cutAt, grudge);
    const record: NonNullable<FaultEvent['partition']> = { grudge, text: describeGrudge(grudge) };
    event.partition = record;
    try {
      const applied = await network.partition(onLayout(layout, grudge));
      event.injectedMs = applied.t - d.rec.t0;
      await sleep(f.forMs);
    } finally {
      const healed = await network.heal();
      d.net.healed(cut, healed.t);
      record.healMs = healed.t - d.rec.t0;
    }
    return master;
  });
  if (master) await settleAfterFrozenMaster(d, master, event, 'the heal');
}

export interface NemesisRun {
  events: FaultEvent[];
  /** The links' state: cuts in force, and when a turn's count may be read. */
  net: ChaosNetwork;
  /** Servers (by name) under a fault right now: these may be down on purpose. */
  busy: { has(name: string): boolean };
  /** Resolves once every planned fault was injected and healed (or failed, noted in its event). */
  done: Promise<void>;
}

/** Starts the plan now (t0 = the run's start); each fault is its own task, so they overlap. */
export function startNemesis(d: Omit<NemesisDeps, 'strike' | 'net'>, plan: readonly PlannedFault[]): NemesisRun {
  const events: FaultEvent[] = [];
  const net = new ChaosNetwork();
  // counted: two faults may strike one server at once (a paused holder's heal can outlast its plan)
  const strikes = new Map<string, number>();
  const busy = { has: (name: string) => (strikes.get(name) ?? 0) > 0 };
  const tasks = plan.map(async (f) => {
    const wait = d.rec.t0 + f.atMs - Date.now();
    if (wait > 0) await sleep(wait);
    const event: FaultEvent = { kind: f.kind, target: f.target, injectedMs: Date.now() - d.rec.t0 };
    events.push(event);
    const struck = new Set<string>();
    const strike = (server: ServerHandle) => {
      if (!struck.has(server.name)) strikes.set(server.name, (strikes.get(server.name) ?? 0) + 1);
      struck.add(server.name);
      return server;
    };
    d.log(`  nemesis: ${f.kind} ${f.target} for ${f.forMs} ms${f.grudge ? ` (${describeGrudge(f.grudge)})` : ''}`);
    try {
      await inject({ ...d, strike, net }, f, event);
      event.healedMs = Date.now() - d.rec.t0;
    } catch (err) {
      event.note = `${event.note ? `${event.note}; ` : ''}failed: ${errorMessage(err)}`;
      d.log(`  nemesis: ${f.kind} ${f.target} ${event.note}`);
    } finally {
      for (const name of struck) strikes.set(name, (strikes.get(name) ?? 1) - 1);
    }
  });
  return { events, net, busy, done: Promise.all(tasks).then(() => undefined) };
}

/** Every server the nemesis may fault, or that a fault elsewhere may bring down (the replica, the Sentinels, the ensemble). */
export function watchedServers(cluster: RunningCluster): ServerHandle[] {
  const s = cluster.servers;
  return [...s.instances, ...s.redlock, s.redis, ...(s.redisReplica ? [s.redisReplica] : []), ...s.sentinels, s.mysql, ...s.zookeeperEnsemble];
}

/**
 * Watches for a server that exits with no fault on it (a crash the faults caused elsewhere): each is
 * recorded and started again, so the run goes on with the whole cluster. Returns a stop function.
 */
export function watchCrashes(
  cluster: RunningCluster,
  nemesis: NemesisRun,
  t0: number,
  crashes: { target: string; atMs: number }[],
  log: (line: string) => void,
): () => Promise<void> {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const server of watchedServers(cluster)) {
        if (server.pid !== undefined || nemesis.busy.has(server.name)) continue;
        crashes.push({ target: server.name, atMs: Date.now() - t0 });
        log(`  ${server.name} exited with no fault on it: restarting it`);
        await restart(nemesis.net, server).catch((err: unknown) => log(`  ${server.name}: restart failed: ${errorMessage(err)}`));
      }
      await sleep(250);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}
