// redis-split-brain: Sentinel's split brain, the partition twin of redis-failover (hosts topology,
// replicated). The old master and app-0 are cut from the Sentinels, the replica, app-1 and app-2;
// the majority promotes the replica, and the old master, alive on its side, still grants the lock:
// two masters, two holders. Then with min-replicas-to-write on the old master: it stops accepting
// writes once its replica's acknowledgements are older than min-replicas-max-lag, and the row
// measures the window that remains. Each step waits until its effect is observed.
import type { Redis } from 'ioredis';
import type { ServerHandle } from '../../src/cluster/cluster.js';
import { isRefusal } from '../../src/http/answers.js';
import { fenceCounterKey, stringLockKey } from '../../src/locks/redis/keys.js';
import { runCommand } from '../../src/net/command.js';
import { complete } from '../../src/net/grudge.js';
import { hostOf, type HostsLayout } from '../../src/net/hosts.js';
import type { PartitionRecord } from '../../src/net/partition.js';
import { STOCK_LOCK_RESOURCE } from '../../src/stock/product.js';
import { sleep } from '../../src/time.js';
import { runCase, type Case, type Verdict } from '../case.js';
import { instance, type Instance } from '../cluster-ops.js';
import { outcomeKey, type CheckParams, type Sent } from '../client.js';
import { freezeHolder, holderText, type Frozen } from '../holder.js';
import { labNetwork, type LabNetwork } from '../lab-network.js';
import { resume } from '../process-state.js';
import { redisAt, replicationState, waitClientFrom, waitPromoted, waitRedisSettled, waitReplicaOf, waitReplicasCaughtUp } from '../replication.js';
import { isSafe, type FaultRow } from '../row.js';
import type { FaultContext, Scenario } from '../scenario.js';
import { waitHealthy } from '../service.js';
import { FAILOVER_LOCK } from './redis-failover.js';

const SCENARIO = 'redis-split-brain';
/** Longer than the whole case: whatever either holder loses, it loses to the split, never to its lease. */
const TTL_MS = 40_000;
/** The replica acknowledges once a second; on a loaded machine, allow for a few. */
const CAUGHT_UP_BOUND_MS = 10_000;
/** Sentinel's down-after (1 s), its vote and the promotion, with room for a loaded machine (and for Sentinel's 8 s between two failovers of one master). */
const PROMOTION_BOUND_MS = 20_000;
/** An instance whose dead sockets are ended asks the Sentinels again and reconnects (its retry backs off to 1 s). */
const FOLLOW_BOUND_MS = 10_000;
/**
 * After the heal, Sentinel turns the old master into a replica once it has seen it up, and still a
 * master, for 8 s (4 × its 2 s hello period); then a full resync. Observed ≈ 11 s here.
 */
const DEMOTION_BOUND_MS = 30_000;
/**
 * Until the replicated Redis is settled (every Sentinel names one master, none sees it down or fails
 * it over, the replica online and in sync): a failover already under way at a case's start (a
 * Sentinel that timed out under load) takes down-after, the vote, the promotion and the old
 * master's demotion (DEMOTION_BOUND_MS).
 */
const SETTLE_BOUND_MS = DEMOTION_BOUND_MS;
/** min-replicas-max-lag of case b, s: short, so the case is, and above the replica's 1 s acknowledgement period. */
const MAX_LAG_S = 3;
/**
 * Redis counts a replica good while its last acknowledgement (sent each second, stamped in whole
 * seconds) is at most MAX_LAG_S old, and recounts each second: the first refusal comes between
 * MAX_LAG_S − 1 and MAX_LAG_S + 2 s after the cut. The bound leaves 3 s more for a loaded machine.
 */
const WINDOW_BOUND_MS = (MAX_LAG_S + 5) * 1_000;
/** Between two probe writes to the old master while the window is open. */
const PROBE_EVERY_MS = 20;
const PROBE_KEY = 'lab:split-brain:probe';
/** The probe's value before the cut, which the replica (the next master) holds too; the window's writes are numbers. */
const PRE_CUT_VALUE = 'before the cut';

const addressOf = (layout: HostsLayout, name: string): string => {
  const host = hostOf(layout, name);
  if (!host) throw new Error(`no host ${name} in the layout`);
  return host.address;
};

/** The split: the old master and app-0 on one side; the Sentinels, the replica, app-1 and app-2 on the other. MySQL, nginx and the rest reach both. */
function splitGrudge(ctx: FaultContext, master: ServerHandle, replica: ServerHandle) {
  const [a0, a1, a2] = [0, 1, 2].map((i) => instance(ctx.cluster, i).server.name);
  return complete([
    [master.name, a0 as string],
    [...ctx.cluster.servers.sentinels.map((s) => s.name), replica.name, a1 as string, a2 as string],
  ]);
}

/** The stock lock on one server, read by the lab: its owner (null when free), remaining lease, and the fence counter. */
interface LockState {
  owner: string | null;
  pttl: number;
  fence: string | null;
}

async function lockOn(client: Redis): Promise<LockState> {
  const [owner, pttl, fence] = await Promise.all([
    client.get(stringLockKey(STOCK_LOCK_RESOURCE)),
    client.pttl(stringLockKey(STOCK_LOCK_RESOURCE)),
    client.get(fenceCounterKey(STOCK_LOCK_RESOURCE)),
  ]);
  return { owner, pttl, fence };
}

/**
 * The same, on a fresh connection: Sentinel, demoting a server, kills its normal clients (CLIENT
 * KILL TYPE normal), the lab's own among them. undefined when it cannot be read.
 */
function lockAfterDemotion(ctx: FaultContext, port: number): Promise<LockState | undefined> {
  return withClient(ctx, port, lockOn).catch(() => undefined);
}

const short = (owner: string | null) => (owner === null ? '–' : owner.length > 12 ? `${owner.slice(0, 12)}…` : owner);

/**
 * The cut drops packets silently, so nothing closes an instance's socket to the old master: its
 * commands time out, and the kernel would give the socket up only after its retransmissions
 * (tcp_retries2, about 15 min). The lab ends the sockets at once (ss -K in the instance's
 * namespace), as a TCP keepalive or user timeout would; the instance then asks the Sentinels again,
 * its own way of following a failover. Resolves once it is connected to the new master and healthy.
 */
async function followToNewMaster(
  ctx: FaultContext,
  layout: HostsLayout,
  at: Instance,
  oldMaster: ServerHandle,
  newMaster: ServerHandle,
): Promise<{ ended: number; ms: number }> {
  const t0 = Date.now();
  const ns = hostOf(layout, at.server.name)?.namespace;
  if (!ns) throw new Error(`no namespace for ${at.server.name}`);
  const out = await runCommand('ip', ['netns', 'exec', ns, 'ss', '-K', '-t', 'dst', addressOf(layout, oldMaster.name)]);
  const ended = out.stdout.split('\n').filter((l) => /^ESTAB\b/.test(l)).length;
  if (!(await waitClientFrom(ctx.cluster, newMaster.port, addressOf(layout, at.server.name), FOLLOW_BOUND_MS))) {
    throw new Error(`${at.via} did not connect to ${newMaster.name} within ${FOLLOW_BOUND_MS} ms of its sockets to ${oldMaster.name} ending`);
  }
  await waitHealthy(at.base, FOLLOW_BOUND_MS);
  return { ended, ms: Date.now() - t0 };
}

interface Cut extends PartitionRecord {
  /** ms the cut's rules took to be in place in every namespace, from its call to its record's t (the time the case measures from). */
  installMs: number;
}

/**
 * Cuts the split, once the replicated Redis is still settled with the roles the case picked: a
 * failover under way before the cut (a Sentinel that timed out under load) would be timed as the
 * cut's promotion, and its replica, already leaving its master, would end min-replicas' window early.
 */
async function cutSplit(ctx: FaultContext, net: LabNetwork, master: ServerHandle, replica: ServerHandle): Promise<Cut> {
  await waitRedisSettled(ctx.cluster, SETTLE_BOUND_MS, { master, replica });
  const t0 = Date.now();
  const cut = await net.partition(splitGrudge(ctx, master, replica));
  return { ...cut, installMs: cut.t - t0 };
}

const cutText = (cut: Cut) => `cut at ${cut.at} (its rules in place ${cut.installMs} ms after the call; times below from then): ${cut.text}`;

interface Split {
  cut: Cut;
  promotedMs: number;
}

/** Cuts the split and waits until the Sentinels name the replica as master. */
async function splitAndPromote(ctx: FaultContext, net: LabNetwork, master: ServerHandle, replica: ServerHandle): Promise<Split | undefined> {
  const cut = await cutSplit(ctx, net, master, replica);
  const promoted = await waitPromoted(ctx.cluster, replica.port, PROMOTION_BOUND_MS);
  return promoted ? { cut, promotedMs: Date.now() - cut.t } : undefined;
}

/**
 * Heals, then waits until the Sentinels have made the old master the new one's replica, in sync, and
 * then until the whole topology has settled (waitRedisSettled), so the next case starts from a
 * Redis no Sentinel is still failing over.
 */
async function healAndDemote(
  ctx: FaultContext,
  net: LabNetwork,
  oldMaster: ServerHandle,
  newMaster: ServerHandle,
): Promise<{ demoted: boolean; ms: number; settled: boolean; settledMs: number; state: string }> {
  const healed = await net.heal();
  const demoted = await waitReplicaOf(ctx.cluster, oldMaster.port, newMaster.port, DEMOTION_BOUND_MS);
  const ms = Date.now() - healed.t;
  if (!demoted)
    return {
      demoted,
      ms,
      settled: false,
      settledMs: ms,
      state: `${oldMaster.name} not demoted ${ms} ms after the heal: ${await replicationState(ctx.cluster, oldMaster.port)}`,
    };
  const unsettled = await waitRedisSettled(ctx.cluster, SETTLE_BOUND_MS, { master: newMaster, replica: oldMaster }).then(
    () => undefined,
    (err: unknown) => (err instanceof Error ? err.message : String(err)),
  );
  const settledMs = Date.now() - healed.t;
  return {
    demoted,
    ms,
    settled: unsettled === undefined,
    settledMs,
    state: `${oldMaster.name} demoted to ${newMaster.name}'s replica, in sync ${ms} ms after the heal; ${unsettled ?? `the topology settled ${settledMs} ms after the heal`}`,
  };
}

/** What app-1 answers while its only socket to Redis is the dead one to the old master (the probe's timeout is the instance's 1 s command timeout). */
async function stuckProbe(c: Case, at: Instance): Promise<Sent> {
  return c.send(at, 'stuck', { waitMs: 500 });
}

export type Fencing = 'unfenced' | 'fenced';

/**
 * Case a. B (app-1) takes the lock on the new master and stops after its read; A (app-0) takes it
 * on the old master. Unfenced, A reads, writes and stops before its release, still holding; B then
 * writes the count it read: one unit sold twice. Fenced, A stops right after its grant; both
 * masters' counters went on from the same replicated value, so A's token equals B's, and B claimed
 * the stock with it first: A's claim is refused. Then the heal: Sentinel demotes the old master,
 * and what it granted is gone from it.
 */
export async function splitBrainCase(ctx: FaultContext, fencing: Fencing): Promise<FaultRow> {
  const key = { scenario: SCENARIO, strategy: FAILOVER_LOCK, variant: `old master + app-0 cut off, ${fencing}`, store: 'mysql' as const };
  const net = labNetwork(ctx, SCENARIO);
  return runCase(ctx, key, ctx.sizes.initial, async (c): Promise<Verdict> => {
    const [aAt, bAt] = [instance(ctx.cluster, 0), instance(ctx.cluster, 1)];
    const { master, replica } = await waitRedisSettled(ctx.cluster, SETTLE_BOUND_MS);
    const oldClient = await redisAt(ctx.cluster, master.port);
    const newClient = await redisAt(ctx.cluster, replica.port);
    const fence: CheckParams = fencing === 'fenced' ? { fenced: 1 } : {};
    const frozen: Frozen[] = [];
    let healed = false;
    try {
      // Fenced: one sale first, so the fence counter exists before the cut (a missing one starts
      // from each server's clock, and the two masters' tokens would differ by chance).
      const warm = fencing === 'fenced' ? await c.send(bAt, 'warm-up', { ...fence, waitMs: 2_000 }) : undefined;
      if (!(await waitReplicasCaughtUp(oldClient, CAUGHT_UP_BOUND_MS))) throw new Error(`${replica.name} did not catch up with ${master.name} before the cut`);
      const before = await lockOn(oldClient);
      const split = await splitAndPromote(ctx, net, master, replica);
      if (!split)
        return {
          expected: `the Sentinels promote ${replica.name} ≤ ${PROMOTION_BOUND_MS} ms`,
          holds: () => false,
          details: [`not promoted: ${await replicationState(ctx.cluster, replica.port)}`],
        };
      const stuck = await stuckProbe(c, bAt);
      const follow = await followToNewMaster(ctx, net.layout, bAt, master, replica);
      const b = await freezeHolder(c, bAt, { ...fence, pause: 'before-write', ttlMs: TTL_MS, waitMs: 2_000 });
      if (!b.frozen) return { expected: 'B stops at pause=before-write', holds: () => false, details: [holderText(b.answer, 'B')] };
      frozen.push(b);
      const onNew = await lockOn(newClient);
      const a = await freezeHolder(c, aAt, { ...fence, pause: fencing === 'fenced' ? 'after-acquire' : 'before-del', ttlMs: TTL_MS });
      if (!a.frozen) return { expected: 'A stops holding the lock', holds: () => false, details: [holderText(a.answer, 'A')] };
      frozen.push(a);
      const onOld = await lockOn(oldClient);
      const seenAt = Date.now();
      const bothHeld = onOld.owner !== null && onNew.owner !== null && onOld.owner !== onNew.owner;
      const sameToken = onOld.fence !== null && onOld.fence === onNew.fence;
      let aAnswer: Sent | undefined;
      if (fencing === 'fenced') {
        // A claims with its token now; B, holding the same one, claimed before its read.
        resume(a.pid);
        aAnswer = await a.answer;
      }
      resume(b.pid);
      const bAnswer = await b.answer;
      // Unfenced, A is still stopped before its release, its lock on the old master: the heal comes now.
      const rejoin = await healAndDemote(ctx, net, master, replica);
      healed = true;
      const afterRejoin = await lockAfterDemotion(ctx, master.port);
      const lost = afterRejoin !== undefined && afterRejoin.owner !== onOld.owner && Date.now() - seenAt < onOld.pttl;
      if (!aAnswer) {
        resume(a.pid);
        aAnswer = await a.answer;
      }
      const aKey = outcomeKey(aAnswer.outcome);
      const bKey = outcomeKey(bAnswer.outcome);
      const stuckKey = outcomeKey(stuck.outcome);
      const details = [
        cutText(split.cut),
        `${replica.name} promoted ${split.promotedMs} ms after the cut (bound ${PROMOTION_BOUND_MS} ms); fence counter at the cut ${before.fence ?? 'absent'}${warm ? ` (after a warm-up sale: ${outcomeKey(warm.outcome)})` : ''}`,
        `app-1 on its dead socket to ${master.name}: ${stuckKey}; its ${follow.ended} sockets ended (ss -K), on ${replica.name} after ${follow.ms} ms`,
        `both hold at once: on ${master.name} owner ${short(onOld.owner)} (token ${onOld.fence}), on ${replica.name} owner ${short(onNew.owner)} (token ${onNew.fence}): ${bothHeld ? 'two owners' : 'NOT two owners'}, ${sameToken ? 'the same token' : 'different tokens'}`,
        holderText(aAnswer, 'A (app-0, old master)'),
        holderText(bAnswer, 'B (app-1, new master)'),
        fencing === 'fenced'
          ? `${rejoin.state}; fence counter on ${master.name} now ${afterRejoin?.fence ?? '?'}, as on ${replica.name} (A, refused, had given its lock back itself)`
          : `${rejoin.state}; A's grant on ${master.name} (owner ${short(onOld.owner)}, ${onOld.pttl} ms of lease left when seen): ${lost ? 'gone after the resync, A still stopped and holding it' : `still there: ${short(afterRejoin?.owner ?? null)}`}`,
      ];
      const facts = {
        bothHeld,
        sameToken,
        tokenOld: onOld.fence ?? '',
        tokenNew: onNew.fence ?? '',
        promotedMs: split.promotedMs,
        cutInstallMs: split.cut.installMs,
        demoted: rejoin.demoted,
        demotedMs: rejoin.ms,
        settled: rejoin.settled,
        settledMs: rejoin.settledMs,
        lost,
        stuck: stuckKey,
        a: aKey,
        b: bKey,
      };
      const common = bothHeld && rejoin.demoted && rejoin.settled && stuckKey === '503 redis_unavailable';
      if (fencing === 'fenced') {
        return {
          expected:
            "two holders at once with the same token (each master counts on from the one replicated value); B claimed the stock with it first, A's claim is refused (503 fenced): B and the warm-up sale sold, nothing oversold",
          recoverMs: split.promotedMs,
          recoverBoundMs: PROMOTION_BOUND_MS,
          details,
          facts,
          holds: (m) => common && sameToken && isSafe(m) && aKey === '503 fenced' && bKey === '200' && m.byRole['warm-up']?.['200'] === 1 && m.deducted === 2,
        };
      }
      return {
        expected: 'two masters grant the lock: 2 holders at once, 1 unit oversold; healed, Sentinel demotes the old master and its grant is gone',
        recoverMs: split.promotedMs,
        recoverBoundMs: PROMOTION_BOUND_MS,
        details,
        facts,
        holds: (m) =>
          common &&
          lost &&
          m.sold === 2 &&
          m.deducted === 1 &&
          m.oversold === 1 &&
          m.refusedButCommitted === 0 &&
          m.undocumented === 0 &&
          m.doubleDeductions === 0,
      };
    } finally {
      for (const f of frozen) if (f.frozen) resume(f.pid);
      if (!healed) await net.heal();
      oldClient.disconnect();
      newClient.disconnect();
    }
  });
}

/** Runs `use` on a fresh lab connection to the server on `port`, closed after. */
async function withClient<T>(ctx: FaultContext, port: number, use: (client: Redis) => Promise<T>): Promise<T> {
  const client = await redisAt(ctx.cluster, port);
  try {
    return await use(client);
  } finally {
    client.disconnect();
  }
}

interface Window {
  /** Probe writes the old master accepted after the cut. */
  accepted: number;
  /** ms from the cut to the last accepted and to the first refused (NOREPLICAS) write; null if none within the bound. */
  lastAcceptedMs: number | null;
  refusedMs: number | null;
  refusal: string;
}

/** Writes to PROBE_KEY on the old master every PROBE_EVERY_MS from the cut until the first refusal. */
async function probeWindow(client: Redis, cutT: number): Promise<Window> {
  const w: Window = { accepted: 0, lastAcceptedMs: null, refusedMs: null, refusal: '' };
  for (let i = 0; Date.now() - cutT <= WINDOW_BOUND_MS; i++) {
    try {
      await client.set(PROBE_KEY, String(i));
      w.accepted++;
      w.lastAcceptedMs = Date.now() - cutT;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!message.startsWith('NOREPLICAS')) throw err;
      w.refusedMs = Date.now() - cutT;
      w.refusal = message;
      return w;
    }
    await sleep(PROBE_EVERY_MS);
  }
  return w;
}

/**
 * Case b. min-replicas-to-write 1 and min-replicas-max-lag on the master for the case: cut off, it
 * stops accepting writes once its replica's last acknowledgement is too old. The lab measures when,
 * with its own writes from the machine (which reaches both sides); then app-0 asks for the lock.
 */
export async function minReplicasCase(ctx: FaultContext): Promise<FaultRow> {
  const key = { scenario: SCENARIO, strategy: FAILOVER_LOCK, variant: `min-replicas-to-write 1, max-lag ${MAX_LAG_S} s`, store: 'mysql' as const };
  const net = labNetwork(ctx, SCENARIO);
  return runCase(ctx, key, ctx.sizes.initial, async (c): Promise<Verdict> => {
    const [aAt, bAt] = [instance(ctx.cluster, 0), instance(ctx.cluster, 1)];
    const { master, replica } = await waitRedisSettled(ctx.cluster, SETTLE_BOUND_MS);
    const oldClient = await redisAt(ctx.cluster, master.port);
    const saved = (await oldClient.config('GET', 'min-replicas-*')) as string[];
    let healed = false;
    try {
      // Only on the master: the replica, once promoted, has no replica of its own to count, and
      // with the setting would refuse every write until the old master rejoined.
      await oldClient.config('SET', 'min-replicas-max-lag', String(MAX_LAG_S));
      await oldClient.config('SET', 'min-replicas-to-write', '1');
      await oldClient.set(PROBE_KEY, PRE_CUT_VALUE); // accepted: its replica counts as good
      if (!(await waitReplicasCaughtUp(oldClient, CAUGHT_UP_BOUND_MS))) throw new Error(`${replica.name} did not catch up with ${master.name} before the cut`);
      const split = await cutSplit(ctx, net, master, replica);
      // Both observed side by side: the refusal on the old master, the promotion at the Sentinels.
      const promotion = waitPromoted(ctx.cluster, replica.port, PROMOTION_BOUND_MS).then((ok) => (ok ? Date.now() - split.t : null));
      const [window, promotedMs] = await Promise.all([probeWindow(oldClient, split.t), promotion]);
      if (window.refusedMs === null || promotedMs === null) {
        return {
          expected: `the old master refuses writes ≤ ${WINDOW_BOUND_MS} ms after the cut, and the Sentinels promote ${replica.name}`,
          holds: () => false,
          details: [`refused: ${window.refusedMs ?? 'no'} (${window.accepted} writes accepted after the cut); promoted: ${promotedMs ?? 'no'}`],
        };
      }
      // Only now, with the refusal seen: app-0, on the old master's side, asks for the lock.
      const minority = await c.send(aAt, 'minority', { ttlMs: TTL_MS, waitMs: 1_000 });
      const stuck = await stuckProbe(c, bAt);
      const follow = await followToNewMaster(ctx, net.layout, bAt, master, replica);
      const majority = await c.send(bAt, 'majority', { ttlMs: TTL_MS, waitMs: 2_000 });
      const rejoin = await healAndDemote(ctx, net, master, replica);
      healed = true;
      // A fresh connection: Sentinel's demotion killed the lab's clients of the old master with the others.
      const probeAfter = await withClient(ctx, master.port, (r) => r.get(PROBE_KEY)).catch(
        (err: unknown) => `unreadable: ${err instanceof Error ? err.message : String(err)}`,
      );
      const windowLost = probeAfter === PRE_CUT_VALUE;
      const aKey = outcomeKey(minority.outcome);
      const bKey = outcomeKey(majority.outcome);
      const stuckKey = outcomeKey(stuck.outcome);
      const overlap = Math.max(0, window.refusedMs - promotedMs);
      const details = [
        cutText(split),
        `${master.name} (min-replicas-to-write 1, min-replicas-max-lag ${MAX_LAG_S}): ${window.accepted} probe writes accepted after the cut, the last ${window.lastAcceptedMs} ms after it; first refused ${window.refusedMs} ms after it (bound ${WINDOW_BOUND_MS} ms): ${window.refusal}`,
        `${replica.name} promoted ${promotedMs} ms after the cut: two masters accepted writes for ${overlap} ms`,
        holderText(minority, "app-0 (old master's side), after the refusal"),
        `app-1 on its dead socket to ${master.name}: ${stuckKey}; its ${follow.ended} sockets ended (ss -K), on ${replica.name} after ${follow.ms} ms`,
        holderText(majority, 'app-1 (new master)'),
        `${rejoin.state}; the window's ${window.accepted} probe writes on ${master.name}: ${windowLost ? `gone after the resync (the key holds "${PRE_CUT_VALUE}" again)` : `the key holds ${JSON.stringify(probeAfter)}`}`,
      ];
      return {
        expected: `the old master stops accepting writes ≤ ${WINDOW_BOUND_MS} ms after the cut (recover ms: the window); then app-0 is refused with a documented 503, not granted; app-1 sells on the new master; nothing oversold`,
        recoverMs: window.refusedMs,
        recoverBoundMs: WINDOW_BOUND_MS,
        details,
        facts: {
          windowMs: window.refusedMs,
          acceptedAfterCut: window.accepted,
          promotedMs,
          cutInstallMs: split.installMs,
          overlapMs: overlap,
          minority: aKey,
          majority: bKey,
          stuck: stuckKey,
          demoted: rejoin.demoted,
          demotedMs: rejoin.ms,
          settled: rejoin.settled,
          settledMs: rejoin.settledMs,
          windowWritesLost: windowLost,
        },
        holds: (m) =>
          isSafe(m) &&
          window.accepted >= 1 &&
          isRefusal(aKey) &&
          bKey === '200' &&
          m.deducted === 1 &&
          stuckKey === '503 redis_unavailable' &&
          rejoin.demoted &&
          rejoin.settled &&
          windowLost,
      };
    } finally {
      if (!healed) await net.heal();
      oldClient.disconnect();
      // Back to what the server had (it is a replica now, where the setting is idle, but a later
      // failover would bring it back); on a fresh connection, as above.
      await withClient(ctx, master.port, async (r) => {
        for (let i = 0; i + 1 < saved.length; i += 2) await r.config('SET', saved[i] as string, saved[i + 1] as string);
      }).catch((err: unknown) => ctx.log(`  ${master.name}: min-replicas settings not restored: ${err instanceof Error ? err.message : String(err)}`));
      // The probe key, wherever it is writable (the master the Sentinels name now).
      for (const port of [replica.port, master.port]) await withClient(ctx, port, (r) => r.del(PROBE_KEY)).catch(() => undefined);
    }
  });
}

export const redisSplitBrain: Scenario = {
  name: SCENARIO,
  topology: 'hosts,replicated',
  family: 'partition',
  description:
    `${FAILOVER_LOCK} on the hosts topology with a replica and three Sentinels (down-after 1 s). The old master and app-0 are cut from the Sentinels, the replica, app-1 and app-2 (iptables DROP both ways; MySQL, nginx and the rest reach all), ` +
    'and the majority promotes the replica ("recover": cut → promotion). The cut closes no socket: app-1, still on its dead socket to the old master, is refused (503 redis_unavailable, its 1 s command timeout), and the kernel would end the socket only after ~15 min of retransmissions; ' +
    'the lab ends its sockets to the old master (ss -K), as a keepalive would, and app-1 asks the Sentinels again and reconnects to the new master. ' +
    'B (app-1) takes the lock on the new master and stops after its read; A (app-0) takes the same lock on the old master, which it still reaches. Unfenced, A writes and stops before its release; B writes the count it read: 2 holders, 1 unit oversold. ' +
    "Fenced (after one warm-up sale, so both masters hold the same counter at the cut), A stops after its grant: each master draws the next token from the same replicated value, so the tokens collide, and B, which claimed the stock first, keeps it: A is refused, 503 fenced — the store's compare saves it, not a token the masters agreed on. " +
    "Then the links heal, the Sentinels demote the old master (≈ 8 s after they see it back, then a full resync), and A's lock on it is gone while A still thinks it holds it. " +
    `Then with min-replicas-to-write 1 and min-replicas-max-lag ${MAX_LAG_S} set on the master (CONFIG SET for the case, restored after): the lab writes a probe key to the old master every ${PROBE_EVERY_MS} ms from the cut, and "recover" is the window until the first write it refuses (NOREPLICAS; Redis's rule puts it between ${MAX_LAG_S - 1} and ${MAX_LAG_S + 2} s). ` +
    "Once it refuses, app-0 asks for the lock and must be refused with a documented 503; app-1 sells on the new master. The window's writes are gone from the old master after the resync.",
  async run(ctx) {
    if (!ctx.wants(FAILOVER_LOCK)) return [];
    return [await splitBrainCase(ctx, 'unfenced'), await splitBrainCase(ctx, 'fenced'), await minReplicasCase(ctx)];
  },
};
