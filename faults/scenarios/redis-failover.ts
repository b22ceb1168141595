// redis-failover: the course's case for RedLock (§2.9). A lock taken on a Redis master that dies
// before the lock reaches its replica is gone once Sentinel promotes the replica, and a second
// client takes it too. Then RedLock, over five independent masters, under the same kill.
import { runCase, type Case, type Verdict } from '../case.js';
import { instance, type Instance } from '../cluster-ops.js';
import { isSold, outcomeKey, type Sent } from '../client.js';
import { freezeHolder, holderText, type Frozen } from '../holder.js';
import { resume } from '../process-state.js';
import { holdReplicationBack, redisAt, redisRoles, rejoinAsReplicaOf, replicationState, unsentToReplica, waitPromoted } from '../replication.js';
import { lockKeysPresent } from '../redis-inspect.js';
import { isSafe, type FaultRow } from '../row.js';
import type { FaultContext, Scenario } from '../scenario.js';
import { waitHealthy } from '../service.js';

/** The single-master Redis lock the course's scenario is told with (SET NX PX with an owner token). */
export const FAILOVER_LOCK = 'redis-owned';
/** Long enough that no lease ends during the case: whatever goes wrong is the failover's doing. */
const TTL_MS = 20_000;
/** Sentinel's down-after (1 s), its vote and the promotion, with room for a loaded machine. */
const PROMOTION_BOUND_MS = 15_000;
/** How long the restarted old master may take to be the new master's replica in sync (a full resync). */
const REJOIN_BOUND_MS = 30_000;
/** The second client's wait for the lock: it gets it at once, or never (the first one holds it everywhere). */
const SECOND_WAIT_MS = 2_000;

/** Two holders at once, each frozen in turn: A before its read, B after its read; then A writes, then B. */
async function secondHolder(c: Case, at: Instance): Promise<Frozen> {
  return freezeHolder(c, at, { pause: 'before-write', ttlMs: TTL_MS, waitMs: SECOND_WAIT_MS });
}

/**
 * Lets both holders finish: A (frozen right after acquiring) reads and writes, then B (frozen after
 * its read) writes the count it read before A's write: one unit sold twice. Returns both answers.
 */
async function finishBoth(a: Frozen & { frozen: true }, b: Frozen): Promise<Sent[]> {
  resume(a.pid);
  const aAnswer = await a.answer;
  if (!b.frozen) return [aAnswer, b.answer];
  resume(b.pid);
  return [aAnswer, await b.answer];
}

const holders = (answers: readonly Sent[]) => answers.filter((s) => isSold(s.outcome)).length;

export async function singleMasterCase(ctx: FaultContext): Promise<FaultRow> {
  const key = { scenario: 'redis-failover', strategy: FAILOVER_LOCK, variant: 'master + replica, Sentinel', store: 'mysql' as const };
  return runCase(ctx, key, ctx.sizes.initial, async (c): Promise<Verdict> => {
    const [aAt, bAt] = [instance(ctx.cluster, 0), instance(ctx.cluster, 1)];
    const { master, replica } = await redisRoles(ctx.cluster);
    const masterClient = await redisAt(ctx.cluster, master.port);
    const replicaPid = replica.pid;
    if (replicaPid === undefined) throw new Error(`${replica.name} is not running`);
    let a: Frozen | undefined;
    try {
      await holdReplicationBack(masterClient, replicaPid);
      a = await freezeHolder(c, aAt, { pause: 'after-acquire', ttlMs: TTL_MS });
      if (!a.frozen) return { expected: 'A stops at pause=after-acquire', holds: () => false, details: [holderText(a.answer, 'A')] };
      const lockOnMaster = (await lockKeysPresent(masterClient)).length > 0;
      const heldBack = (await unsentToReplica(masterClient)) > 0;
      masterClient.disconnect();
      await master.kill();
      resume(replicaPid);
      const killedAt = Date.now();
      const promoted = await waitPromoted(ctx.cluster, replica.port, PROMOTION_BOUND_MS);
      const promotedMs = Date.now() - killedAt;
      if (!promoted)
        return {
          expected: `Sentinel promotes ${replica.name} ≤ ${PROMOTION_BOUND_MS} ms`,
          holds: () => false,
          details: [`not promoted after ${promotedMs} ms`],
        };
      // B's instance follows the failover on its own; wait until it says so.
      await waitHealthy(bAt.base, 10_000);
      const b = await secondHolder(c, bAt);
      const answers = await finishBoth(a, b);
      await master.start();
      const { rejoined, state } = await rejoinAsReplica(ctx, master.port, replica.port);
      const n = holders(answers);
      return {
        expected: 'the lock is lost in the failover (§2.9): 2 holders, 1 unit oversold',
        recoverMs: promotedMs,
        recoverBoundMs: PROMOTION_BOUND_MS,
        details: [
          `lock on the master: ${lockOnMaster}; its replication held back: ${heldBack}; ${replica.name} promoted ${promotedMs} ms after the kill`,
          holderText(answers[0]!, 'A (app-0)'),
          holderText(answers[1]!, 'B (app-1)'),
          `holders at once: ${n}; ${master.name} back as a replica: ${rejoined} (${state})`,
        ],
        facts: { holders: n, lockOnMaster, heldBack, promotedMs, rejoined },
        holds: (m) => n === 2 && m.oversold === 1 && m.refusedButCommitted === 0 && m.undocumented === 0,
      };
    } finally {
      masterClient.disconnect();
      if (a?.frozen) resume(a.pid);
    }
  });
}

/**
 * The old master restarts empty; the lab makes it the new master's replica at once (Sentinel would,
 * at its next check). Whether it got in sync within REJOIN_BOUND_MS, and how it stands.
 */
async function rejoinAsReplica(ctx: FaultContext, port: number, masterPort: number): Promise<{ rejoined: boolean; state: string }> {
  const started = Date.now();
  const rejoined = await rejoinAsReplicaOf(ctx.cluster, port, masterPort, REJOIN_BOUND_MS);
  const took = Date.now() - started;
  return { rejoined, state: rejoined ? `in sync after ${took} ms` : `not in sync after ${took} ms: ${await replicationState(ctx.cluster, port)}` };
}

export async function redlockCase(ctx: FaultContext): Promise<FaultRow> {
  const key = { scenario: 'redis-failover', strategy: 'redlock', variant: '5 masters, one killed', store: 'mysql' as const };
  return runCase(ctx, key, ctx.sizes.initial, async (c): Promise<Verdict> => {
    const [aAt, bAt] = [instance(ctx.cluster, 0), instance(ctx.cluster, 1)];
    const victim = ctx.cluster.servers.redlock[0];
    if (!victim) throw new Error('no RedLock master');
    const a = await freezeHolder(c, aAt, { pause: 'after-acquire', ttlMs: TTL_MS });
    if (!a.frozen) return { expected: 'A stops at pause=after-acquire', holds: () => false, details: [holderText(a.answer, 'A')] };
    try {
      await victim.kill();
      const b = await secondHolder(c, bAt);
      const answers = await finishBoth(a, b);
      await victim.start();
      const n = holders(answers);
      const bKey = b.frozen ? '200' : outcomeKey(b.answer.outcome);
      return {
        expected: `one holder: B is refused (503 lock_timeout), nothing oversold`,
        details: [holderText(answers[0]!, 'A (app-0)'), holderText(answers[1]!, 'B (app-1)'), `holders at once: ${n}`],
        facts: { holders: n },
        holds: (m) => isSafe(m) && n === 1 && bKey === '503 lock_timeout',
      };
    } finally {
      resume(a.pid);
    }
  });
}

export const redisFailover: Scenario = {
  name: 'redis-failover',
  topology: 'replicated',
  description:
    `${FAILOVER_LOCK} on a master with one replica and three Sentinels (down-after 1 s). The replica is frozen and a 24 MB write fills the sockets between them, ` +
    "so the master's next writes stay in its memory (replication held back). A (app-0) takes the lock and stops itself (pause=after-acquire); the master is killed, " +
    'the replica resumed, and the Sentinels promote it ("recover": kill → promotion). B (app-1) takes the same lock from the new master and stops after its read ' +
    '(pause=before-write); A runs on and writes, then B writes the count it read: the course predicts 2 holders and 1 unit oversold. The old master restarts empty and ' +
    "is made the new master's replica. Then redlock: A holds it on all five masters, one master is killed, and B (waitMs 2 s) must be refused.",
  async run(ctx) {
    const rows: FaultRow[] = [];
    if (ctx.wants(FAILOVER_LOCK)) rows.push(await singleMasterCase(ctx));
    if (ctx.wants('redlock')) rows.push(await redlockCase(ctx));
    return rows;
  },
};
