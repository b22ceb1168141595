// holder-crash: the lock holder's process dies (kill -9) while it holds the lock. How long until
// another instance gets the lock is the lock's whole answer to a crash.
import { runCase, type Verdict } from '../case.js';
import { instance } from '../cluster-ops.js';
import { isSold, outcomeKey } from '../client.js';
import { freezeHolder, holderText } from '../holder.js';
import { labLocksOf, ZK_SESSION_MS, type Claim, type LabLocks } from '../locks.js';
import { isSafe, type FaultRow } from '../row.js';
import type { FaultContext, Scenario } from '../scenario.js';

/** The lease the holder asks for; redis-setnx ignores it (no expiry), so it asks for a long one. */
const LEASE_MS = 1_000;
const NO_EXPIRY_TTL_MS = 60_000;
/** How long the next request may wait for the lock: the measurement's bound. */
const NEXT_WAIT_MS = 8_000;
/** Allowed beyond the lease: the waiter's retry interval, RedLock's backoff, ZooKeeper's tick (500 ms). */
const SLACK_MS = 1_500;

function expectation(claim: Claim, leaseMs: number): { text: string; boundMs: number | null } {
  if (claim === 'forever') return { text: `never: 503 lock_timeout after waitMs ${NEXT_WAIT_MS}`, boundMs: null };
  if (claim === 'ttl') return { text: `≈ ttl ${leaseMs} ms (≤ ${leaseMs + SLACK_MS})`, boundMs: leaseMs + SLACK_MS };
  // The kernel closes a killed process's sockets: the database ends its session, and the lock with it.
  if (claim === 'connection') return { text: `at once: the lock ends with the holder's database session (≤ ${SLACK_MS})`, boundMs: SLACK_MS };
  return { text: `≈ session ${ZK_SESSION_MS} ms (≤ ${ZK_SESSION_MS + SLACK_MS})`, boundMs: ZK_SESSION_MS + SLACK_MS };
}

async function crashCase(ctx: FaultContext, locks: LabLocks, strategy: string): Promise<FaultRow> {
  const claim = locks.claimOf(strategy);
  const key = { scenario: 'holder-crash', strategy, variant: 'kill -9', store: locks.homeStoreOf(strategy) };
  return runCase(ctx, key, ctx.sizes.initial, async (c): Promise<Verdict> => {
    const [holderAt, nextAt] = [instance(ctx.cluster, 0), instance(ctx.cluster, 1)];
    const ttlMs = claim === 'forever' ? NO_EXPIRY_TTL_MS : LEASE_MS;
    const frozen = await freezeHolder(c, holderAt, { pause: 'after-acquire', ttlMs });
    if (!frozen.frozen) return { expected: 'the holder stops at pause=after-acquire', holds: () => false, details: [holderText(frozen.answer)] };
    await holderAt.server.kill();
    const killedAt = Date.now();
    const next = await c.send(nextAt, 'next', { waitMs: NEXT_WAIT_MS, ttlMs: 5_000 });
    const recoverMs = isSold(next.outcome) ? Date.now() - killedAt : null;
    await holderAt.server.start();
    const { text, boundMs } = expectation(claim, locks.leaseMsOf(strategy, LEASE_MS));
    const nextKey = outcomeKey(next.outcome);
    return {
      expected: `next holder ${text}; nothing oversold`,
      recoverMs,
      recoverBoundMs: boundMs ?? NEXT_WAIT_MS,
      details: [holderText(await frozen.answer), `next (app-1, waitMs ${NEXT_WAIT_MS}): ${nextKey} after ${next.ms} ms`],
      holds: (m) => isSafe(m) && (boundMs === null ? recoverMs === null && nextKey === '503 lock_timeout' : recoverMs !== null && recoverMs <= boundMs),
    };
  });
}

export const holderCrash: Scenario = {
  name: 'holder-crash',
  description:
    'The holder (app-0) stops itself right after acquiring the lock (pause=after-acquire) and is killed with SIGKILL. ' +
    `Then one request on app-1 waits up to ${NEXT_WAIT_MS} ms for the lock; "recover" is the time from the kill to its 200. ` +
    `Leases ask for ttlMs ${LEASE_MS}, ZooKeeper sessions last ${ZK_SESSION_MS} ms. redis-setnx has no expiry and never recovers (reset clears it). ` +
    'app-0 is restarted after each case.',
  async run(ctx) {
    const rows: FaultRow[] = [];
    const locks = await labLocksOf(ctx.cluster);
    for (const strategy of locks.all.filter(ctx.wants)) rows.push(await crashCase(ctx, locks, strategy));
    return rows;
  },
};
