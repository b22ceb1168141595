// holder-pause: the holder freezes after its last "still held?" check, right before its write, and
// stays frozen past its lease while other instances sell. When it runs again it writes the count
// it read. Unfenced, that write undoes every sale made meanwhile; fenced, the store refuses it.
// A lock without a lease (redis-setnx) is the control: the frozen holder keeps it, nobody sells.
import { sleep } from '../../src/time.js';
import type { StoreKind } from '../../src/stock/store.js';
import { runCase, type Verdict } from '../case.js';
import { instance } from '../cluster-ops.js';
import { outcomeKey, type CheckParams } from '../client.js';
import { answersText, freezeHolder, holderText, sellThrough } from '../holder.js';
import { labLocksOf, ZK_SESSION_MS } from '../locks.js';
import { resume } from '../process-state.js';
import { isSafe, type FaultRow } from '../row.js';
import type { FaultContext, Scenario } from '../scenario.js';

const HOLDER_TTL_MS = 500;
/** Past the lease before selling: the lease itself plus room for the server to expire it (ZooKeeper checks once a 500 ms tick). */
const MARGIN_MS = 700;
const SELLER_PARAMS = { ttlMs: 5_000, waitMs: 10_000 };
/** Against a lock that never expires, each seller gives up quickly: its 503 lock_timeout is the point. */
const NO_LEASE_SELLER_PARAMS = { ttlMs: 5_000, waitMs: 200 };

export type Fencing = 'unfenced' | 'fenced';

/** The stores each strategy is tried on: MySQL for all, and the Redis key for one lock, to show the Lua fence too. */
const REDIS_STORE_TOO = new Set(['redis-owned']);

export async function pauseCase(ctx: FaultContext, strategy: string, fencing: Fencing, store: StoreKind): Promise<FaultRow> {
  const n = ctx.sizes.sell;
  const locks = await labLocksOf(ctx.cluster);
  const key = { scenario: 'holder-pause', strategy, variant: fencing, store };
  return runCase(ctx, key, ctx.sizes.initial, async (c): Promise<Verdict> => {
    const [holderAt, ...sellers] = [0, 1, 2].map((i) => instance(ctx.cluster, i));
    const fence: CheckParams = fencing === 'fenced' ? { fenced: 1 } : {};
    const frozen = await freezeHolder(c, holderAt!, { ...fence, pause: 'before-write', ttlMs: HOLDER_TTL_MS });
    if (!frozen.frozen) {
      const holderKey = outcomeKey(frozen.answer.outcome);
      // A lock with no token to fence with must refuse fenced=1 up front, having done nothing.
      if (fencing === 'fenced' && !locks.fenceable(strategy)) {
        return {
          expected: '400 fenced: no fencing token (refused, nothing done)',
          holds: (m) => holderKey === '400 fenced' && m.deducted === 0,
          details: [holderText(frozen.answer)],
        };
      }
      return { expected: 'the holder stops at pause=before-write', holds: () => false, details: [holderText(frozen.answer)] };
    }
    const claim = locks.claimOf(strategy);
    // Held for good while frozen: no lease (redis-setnx), or a lock that lives with the database session.
    const keptWhileFrozen = claim === 'forever' || claim === 'connection';
    const frozenMs = (claim === 'session' ? ZK_SESSION_MS : claim === 'ttl' ? locks.leaseMsOf(strategy, HOLDER_TTL_MS) : 0) + MARGIN_MS;
    await sleep(frozenMs);
    const sold = await sellThrough(c, sellers, n, { ...fence, ...(keptWhileFrozen ? NO_LEASE_SELLER_PARAMS : SELLER_PARAMS) });
    resume(frozen.pid);
    const holder = await frozen.answer;
    const holderKey = outcomeKey(holder.outcome);
    const details = [holderText(holder), `sellers (app-1, app-2, frozen ${frozenMs} ms in): ${answersText(sold)}`];
    if (keptWhileFrozen) {
      return {
        expected: `${claim === 'forever' ? 'no lease' : 'held with its database session'}: the frozen holder keeps the lock, every seller gets 503 lock_timeout, nothing oversold`,
        details,
        holds: (m) => isSafe(m) && holderKey === '200' && m.deducted === 1 && (m.byRole.sell?.['503 lock_timeout'] ?? 0) === n,
      };
    }
    if (fencing === 'unfenced') {
      return {
        expected: `oversold = N (${n}): the stale write restores the count it read`,
        details,
        holds: (m) => m.oversold === n && holderKey === '200' && m.undocumented === 0,
      };
    }
    return {
      expected: 'oversold 0; the holder answers 503 fenced',
      details,
      holds: (m) => isSafe(m) && holderKey === '503 fenced' && m.deducted === n,
    };
  });
}

export const holderPause: Scenario = {
  name: 'holder-pause',
  description:
    `The holder (app-0) stops itself after its lock's last "still held?" check, right before its write (pause=before-write; fenced: after claiming the row and reading), ` +
    `with ttlMs ${HOLDER_TTL_MS} (ZooKeeper: the ${ZK_SESSION_MS} ms session). The lab waits past the lease (+${MARGIN_MS} ms), sells N units one at a time through app-1 and app-2, ` +
    'then lets the holder run (SIGCONT) and awaits its answer. Unfenced: it writes the count it read, undoing the N sales (oversold = N). ' +
    'Fenced (every request with fenced=1): the store refuses its stale token, 503 fenced, nothing oversold. RedLock has no token and must refuse fenced=1 with a 400. ' +
    `redis-setnx has no lease: the frozen holder keeps the lock, each seller gives up after waitMs ${NO_LEASE_SELLER_PARAMS.waitMs} (503 lock_timeout), and the holder's write is the only one. ` +
    "PostgreSQL's advisory locks end with the holder's database session, which a frozen process keeps: the same as no lease (on the Postgres row). etcd's leases are whole seconds: ttlMs 500 is a 1 s lease.",
  async run(ctx) {
    const rows: FaultRow[] = [];
    const locks = await labLocksOf(ctx.cluster);
    for (const strategy of locks.all.filter(ctx.wants)) {
      const stores: StoreKind[] = REDIS_STORE_TOO.has(strategy) ? ['mysql', 'redis'] : [locks.homeStoreOf(strategy)];
      for (const store of stores) for (const fencing of ['unfenced', 'fenced'] as const) rows.push(await pauseCase(ctx, strategy, fencing, store));
    }
    return rows;
  },
};
