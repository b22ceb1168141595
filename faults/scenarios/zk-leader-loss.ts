// zk-leader-loss: the ensemble's leader is killed while deductions run under a ZooKeeper lock.
// The other two nodes elect a new leader; the locks must stay exact throughout and sell again
// once the election is over. Reported: the election, the pause in sales, and the 503s.
import { pollUntil, sleep } from '../../src/time.js';
import { runCase, type Verdict } from '../case.js';
import { instances } from '../cluster-ops.js';
import { isSold, type CheckParams, type Sent } from '../client.js';
import { answersText } from '../holder.js';
import { ZK_STRATEGIES } from '../locks.js';
import { zkLeader } from '../replication.js';
import { isSafe, type FaultRow } from '../row.js';
import type { FaultContext, Scenario } from '../scenario.js';
import { keepSending } from './dependency-stop.js';

const LOAD: CheckParams = { workMs: 20, waitMs: 5_000 };
/** Into the run when the leader is killed: sales are flowing by then. */
const KILL_AFTER_MS = 1_000;
/** Sales after the kill before the run ends: the locks work again, not merely one lucky request. */
const SALES_AFTER = 5;
const RECOVER_BOUND_MS = 15_000;

const doneAt = (s: Sent) => s.startedAt + s.ms;

/** The longest time without a sale completing, from `from` until the end of the run. */
function longestPause(sent: readonly Sent[], from: number): number {
  const times = sent.filter((s) => isSold(s.outcome) && doneAt(s) >= from).map(doneAt).sort((a, b) => a - b);
  let prev = from;
  let longest = 0;
  for (const t of times) {
    longest = Math.max(longest, t - prev);
    prev = t;
  }
  return longest;
}

async function leaderLossCase(ctx: FaultContext, strategy: string): Promise<FaultRow> {
  const key = { scenario: 'zk-leader-loss', strategy, variant: '3-node ensemble, leader killed', store: 'mysql' as const };
  return runCase(ctx, key, ctx.sizes.initial, async (c): Promise<Verdict> => {
    const leader = await zkLeader(ctx.cluster);
    if (!leader) throw new Error('the ensemble has no leader');
    let killedAt = 0;
    let electedMs: number | null = null;
    let recoverMs: number | null = null;
    const run = (async () => {
      await sleep(KILL_AFTER_MS);
      await leader.kill();
      killedAt = Date.now();
      const elected = await pollUntil(async () => (await zkLeader(ctx.cluster)) !== undefined, RECOVER_BOUND_MS, 50);
      if (elected) electedMs = Date.now() - killedAt;
      // sales again: requests sent after the kill, answered 200
      await pollUntil(() => c.sent.filter((s) => s.startedAt > killedAt && isSold(s.outcome)).length >= SALES_AFTER, RECOVER_BOUND_MS, 20);
      const first = c.sent.filter((s) => s.startedAt > killedAt && isSold(s.outcome)).map(doneAt).sort((a, b) => a - b)[0];
      if (first !== undefined) recoverMs = first - killedAt;
    })();
    const answers = await keepSending(c, instances(ctx.cluster), ctx.sizes.inFlight, run, LOAD);
    await run;
    await leader.start();
    const pauseMs = longestPause(c.sent, killedAt - KILL_AFTER_MS);
    return {
      expected: `exact throughout; a new leader and sales again ≤ ${RECOVER_BOUND_MS / 1000} s after the kill`,
      recoverMs,
      recoverBoundMs: RECOVER_BOUND_MS,
      details: [
        `${leader.name} (the leader) killed ${KILL_AFTER_MS} ms in; new leader after ${electedMs ?? 'never'} ms; longest pause in sales ${pauseMs} ms`,
        `${ctx.sizes.inFlight} clients: ${answersText(answers)}`,
      ],
      facts: { electedMs: electedMs ?? -1, pauseMs },
      holds: (m) => isSafe(m) && (m.answers['no answer'] ?? 0) === 0 && electedMs !== null && recoverMs !== null,
    };
  });
}

export const zkLeaderLoss: Scenario = {
  name: 'zk-leader-loss',
  topology: 'replicated',
  description:
    `A few clients send deductions (workMs ${LOAD.workMs}, waitMs ${LOAD.waitMs}) through the three instances, whose sessions span a three-node ZooKeeper ensemble; ` +
    `${KILL_AFTER_MS} ms in, the leader is killed (SIGKILL). The two others elect a new one. Sold must equal deducted exactly throughout; "recover" is the time from the kill ` +
    `to the first sale of a request sent after it; the run ends after ${SALES_AFTER} such sales. The details give the election time and the longest pause in sales. The node is restarted after.`,
  async run(ctx) {
    const rows: FaultRow[] = [];
    for (const strategy of ZK_STRATEGIES.filter(ctx.wants)) rows.push(await leaderLossCase(ctx, strategy));
    return rows;
  },
};
