// zk-session-expiry: the holder's ZooKeeper session expires while it works (its process frozen
// right after acquiring, past the session timeout). Unlike holder-pause, its "still held?" check
// is still ahead of it: it must learn the session died and refuse to write (an honest 503), even
// unfenced, and its instance must get a new session and deduct again.
import { sleep } from '../../src/time.js';
import { runCase, type Verdict } from '../case.js';
import { instance } from '../cluster-ops.js';
import { outcomeKey } from '../client.js';
import { answersText, freezeHolder, holderText, sellThrough } from '../holder.js';
import { labLocksOf, ZK_SESSION_MS } from '../locks.js';
import { resume } from '../process-state.js';
import { timeUntilSold } from '../recovery.js';
import { isSafe, type FaultRow } from '../row.js';
import type { FaultContext, Scenario } from '../scenario.js';

/** Work after the resume: time enough for the client to hear that its session is gone. */
const WORK_MS = 1_500;
/** Past the session before selling: ZooKeeper expires sessions on its 500 ms tick. */
const MARGIN_MS = 1_000;
const RECOVER_BOUND_MS = 10_000;
/** Answers that say "not sold" and why, truthfully: the session (and with it the lock) is gone. */
const HONEST = new Set(['503 lock_lost', '503 zookeeper_unavailable']);

export async function expiryCase(ctx: FaultContext, strategy: string): Promise<FaultRow> {
  const n = ctx.sizes.sell;
  const key = { scenario: 'zk-session-expiry', strategy, variant: 'unfenced', store: 'mysql' as const };
  return runCase(ctx, key, ctx.sizes.initial, async (c): Promise<Verdict> => {
    const [holderAt, ...sellers] = [0, 1, 2].map((i) => instance(ctx.cluster, i));
    const frozen = await freezeHolder(c, holderAt!, { pause: 'after-acquire', workMs: WORK_MS });
    if (!frozen.frozen) return { expected: 'the holder stops at pause=after-acquire', holds: () => false, details: [holderText(frozen.answer)] };
    await sleep(ZK_SESSION_MS + MARGIN_MS);
    const sold = await sellThrough(c, sellers, n, { waitMs: 10_000 });
    const resumedAt = Date.now();
    resume(frozen.pid);
    const holder = await frozen.answer;
    const holderKey = outcomeKey(holder.outcome);
    const recoverMs = await timeUntilSold(c, holderAt!, { waitMs: 4_000 }, resumedAt, RECOVER_BOUND_MS);
    return {
      expected: `the holder refuses honestly (503 lock_lost), nothing oversold; app-0 deducts again ≤ ${RECOVER_BOUND_MS / 1000} s after the resume`,
      recoverMs,
      recoverBoundMs: RECOVER_BOUND_MS,
      details: [holderText(holder), `sellers (app-1, app-2, ${ZK_SESSION_MS + MARGIN_MS} ms in): ${answersText(sold)}`],
      holds: (m) => isSafe(m) && HONEST.has(holderKey) && recoverMs !== null,
    };
  });
}

export const zkSessionExpiry: Scenario = {
  name: 'zk-session-expiry',
  description:
    `The holder (app-0) stops itself right after acquiring (pause=after-acquire, workMs ${WORK_MS}) and stays frozen past its ${ZK_SESSION_MS} ms session (+${MARGIN_MS} ms), ` +
    'so ZooKeeper expires the session and deletes its node; N units are sold through app-1 and app-2; then it runs again (SIGCONT). ' +
    'Its "still held?" check is still ahead: it must answer 503 lock_lost and write nothing, unfenced. "recover" is the time from the resume to app-0\'s next 200 (a new session). ' +
    'The frozen-after-the-check case, where only a fence helps, is holder-pause (zk-ephemeral, zk-watch).',
  async run(ctx) {
    const rows: FaultRow[] = [];
    for (const strategy of (await labLocksOf(ctx.cluster)).zk.filter(ctx.wants)) rows.push(await expiryCase(ctx, strategy));
    return rows;
  },
};
