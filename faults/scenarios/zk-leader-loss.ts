// zk-leader-loss: the ensemble's leader is killed while deductions run under a ZooKeeper lock.
// The other two nodes elect a new leader; the locks must stay exact throughout and sell again
// once the election is over. Reported: the election, the pause in sales, and the 503s.
import { pollUntil } from '../../src/time.js';
import { runCase, type Verdict } from '../case.js';
import { instances } from '../cluster-ops.js';
import { isSold, type CheckParams, type Sent } from '../client.js';
import { answersText } from '../holder.js';
import { labLocksOf } from '../locks.js';
import { zkLeader } from '../replication.js';
import { isSafe, type FaultRow } from '../row.js';
import type { FaultContext, Scenario } from '../scenario.js';
import type { ServerHandle } from '../../src/cluster/cluster.js';
import { keepSending } from './dependency-stop.js';

const LOAD: CheckParams = { workMs: 20, waitMs: 5_000 };
/** Sales before the leader is killed: sales are flowing by then. */
const SALES_BEFORE = 5;
/** Sales of requests sent after the kill before the run ends: the locks work again, not merely one lucky request. */
const SALES_AFTER = 5;
/** Bound on SALES_BEFORE (a whole ensemble makes them in well under a second). */
const FLOWING_BOUND_MS = 15_000;
export const RECOVER_BOUND_MS = 15_000;

/**
 * Units in stock for `clients` senders: more than the case can ever sell, so a sold-out stock never
 * hides the sales after the election, however fast the machine. Each phase stops sending at its
 * count of sales, when every other client has at most one request still out.
 */
const stockFor = (clients: number): number => SALES_BEFORE + SALES_AFTER + 2 * (clients - 1) + 1;

const doneAt = (s: Sent) => s.startedAt + s.ms;

/** The longest time without a sale completing, from `from` until the end of the run. */
function longestPause(sent: readonly Sent[], from: number): number {
  const times = sent
    .filter((s) => isSold(s.outcome) && doneAt(s) >= from)
    .map(doneAt)
    .sort((a, b) => a - b);
  let prev = from;
  let longest = 0;
  for (const t of times) {
    longest = Math.max(longest, t - prev);
    prev = t;
  }
  return longest;
}

/** What happens to the leader: killed and started again, or cut off and healed (zk-leader-partition). */
export interface LeaderFault {
  scenario: string;
  variant: string;
  /** In the details: "killed", "cut off from the other two". */
  done: string;
  inflict(leader: ServerHandle): Promise<void>;
  /** Once the run is over: the leader back. */
  undo(leader: ServerHandle): Promise<void>;
  /** How soon sales must resume (default RECOVER_BOUND_MS). */
  recoverBoundMs?: number;
}

const KILLED: LeaderFault = {
  scenario: 'zk-leader-loss',
  variant: '3-node ensemble, leader killed',
  done: 'killed',
  inflict: (leader) => leader.kill(),
  undo: (leader) => leader.start(),
};

/** Sales flowing, then the fault on the leader, then sales again from requests sent after it; exact throughout. */
export async function leaderFaultCase(ctx: FaultContext, strategy: string, fault: LeaderFault): Promise<FaultRow> {
  const key = { scenario: fault.scenario, strategy, variant: fault.variant, store: 'mysql' as const };
  const clients = ctx.sizes.inFlight;
  const initial = Math.max(ctx.sizes.initial, stockFor(clients));
  const bound = fault.recoverBoundMs ?? RECOVER_BOUND_MS;
  return runCase(ctx, key, initial, async (c): Promise<Verdict> => {
    const leader = await zkLeader(ctx.cluster);
    if (!leader) throw new Error('the ensemble has no leader');
    const all = instances(ctx.cluster);
    const sold = (role: string) => c.sent.filter((s) => s.role === role && isSold(s.outcome));
    const startedAt = Date.now();
    // Before: the load stops at SALES_BEFORE sales, and the leader is killed as soon as they are
    // in, without waiting for the other clients' last requests.
    let flowing!: () => void;
    const flowingNow = new Promise<void>((resolve) => (flowing = resolve));
    const enoughBefore = () => {
      const enough = sold('before').length >= SALES_BEFORE || Date.now() - startedAt > FLOWING_BOUND_MS;
      if (enough) flowing();
      return enough;
    };
    const before = keepSending(c, all, clients, enoughBefore, LOAD, 'before');
    await Promise.race([flowingNow, before]);
    const flowingMs = Date.now() - startedAt;
    await fault.inflict(leader);
    const killedAt = Date.now();
    // After: requests sent once the leader is dead, until SALES_AFTER of them sold.
    // Another node as leader: a leader cut off still calls itself one until it notices.
    const elected = pollUntil(async () => ((await zkLeader(ctx.cluster, leader)) ?? leader) !== leader, bound, 50).then((ok) =>
      ok ? Date.now() - killedAt : null,
    );
    const after = keepSending(c, all, clients, () => sold('after').length >= SALES_AFTER || Date.now() - killedAt > bound, LOAD, 'after');
    const answers = [...(await before), ...(await after)];
    const electedMs = await elected;
    await fault.undo(leader);
    const first = sold('after')
      .map(doneAt)
      .sort((x, y) => x - y)[0];
    const recoverMs = sold('after').length >= SALES_AFTER && first !== undefined ? first - killedAt : null;
    const pauseMs = longestPause(c.sent, killedAt);
    return {
      expected: `exact throughout; a new leader and sales again ≤ ${bound / 1000} s after the leader is ${fault.done}`,
      recoverMs,
      recoverBoundMs: bound,
      details: [
        `${leader.name} (the leader) ${fault.done} after ${sold('before').length >= SALES_BEFORE ? `${SALES_BEFORE} sales` : 'no flow of sales'} (${flowingMs} ms in); new leader after ${electedMs ?? 'never'} ms; longest pause in sales from then ${pauseMs} ms`,
        `${clients} clients, ${initial} units: ${answersText(answers)}`,
      ],
      facts: { electedMs: electedMs ?? -1, pauseMs },
      holds: (m) =>
        isSafe(m) &&
        (m.answers['no answer'] ?? 0) === 0 &&
        (m.answers['409 sold_out'] ?? 0) === 0 &&
        sold('before').length >= SALES_BEFORE &&
        electedMs !== null &&
        recoverMs !== null,
    };
  });
}

export const zkLeaderLoss: Scenario = {
  name: 'zk-leader-loss',
  topology: 'replicated',
  description:
    `A few clients send deductions (workMs ${LOAD.workMs}, waitMs ${LOAD.waitMs}) through the three instances, whose sessions span a three-node ZooKeeper ensemble; ` +
    `once ${SALES_BEFORE} have sold, they stop sending and the leader is killed (SIGKILL) at once, their last requests possibly still out. The two others elect a new one, and the clients send again ` +
    `until ${SALES_AFTER} requests sent after the kill have sold. Each phase ends at a count of sales, not a time, and the stock exceeds what both can sell, so it never runs out ` +
    `before the sales after the election, however fast the machine. Sold must equal deducted exactly throughout; "recover" is the time from the kill to the first sale of a ` +
    `request sent after it. The details give the election time and the longest pause in sales. The node is restarted after.`,
  async run(ctx) {
    const rows: FaultRow[] = [];
    for (const strategy of (await labLocksOf(ctx.cluster)).zk.filter(ctx.wants)) rows.push(await leaderFaultCase(ctx, strategy, KILLED));
    return rows;
  },
};
