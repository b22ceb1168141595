// etcd-lease: an etcd lock's lease revoked behind its owner's back (etcdctl lease revoke, or a
// lease that ran out while its keep-alives could not get through). Two moments:
// - the holder's lease, while it is frozen before its write: others sell; its stale write
//   oversells unfenced and is refused fenced, as holder-pause shows with an expiry;
// - a waiter's lease, while it waits in the queue: Jepsen's etcd 3.4.3 lock finding (etcd issue
//   11456). Once the key before it is gone, the recipe without the check after the wait tells the
//   waiter it holds the lock, though its key is gone and the next acquirer holds it too.
// Each step waits for the previous one to be seen in etcd or in the process table: sequenced.
import type { Etcd3 } from 'etcd3';
import { openEtcd } from '../../src/locks/etcd/client.js';
import { mutexPrefix } from '../../src/locks/etcd/mutex.js';
import { STOCK_LOCK_RESOURCE } from '../../src/stock/product.js';
import { pollUntil } from '../../src/time.js';
import { runCase, type Case, type Verdict } from '../case.js';
import { instance, pidOf } from '../cluster-ops.js';
import { outcomeKey, type CheckParams, type Sent } from '../client.js';
import { answersText, freezeHolder, holderText, sellThrough, FREEZE_TIMEOUT_MS } from '../holder.js';
import { isStopped, resume } from '../process-state.js';
import { isSafe, type FaultRow } from '../row.js';
import type { FaultContext, Scenario } from '../scenario.js';

/** Leases far longer than a case: only the lab's revoke ends them, and no keep-alive falls due meanwhile (every ttl/3). */
const LONG_TTL_MS = 60_000;
const PARAMS = { ttlMs: LONG_TTL_MS, waitMs: 20_000 };
/** How long etcd may take to show a change the lab made or a request caused. */
const SEEN_MS = 5_000;

/** The queue of keys for the stock's lock, oldest first: each key and the lease it lives under. */
async function queue(client: Etcd3): Promise<{ key: string; lease: string }[]> {
  const res = await client.getAll().prefix(mutexPrefix(STOCK_LOCK_RESOURCE)).sort('Create', 'Ascend').exec();
  return res.kvs.map((kv) => ({ key: kv.key.toString(), lease: kv.lease }));
}

async function waitQueueLength(client: Etcd3, n: number, what: string): Promise<{ key: string; lease: string }[]> {
  let seen: { key: string; lease: string }[] = [];
  const ok = await pollUntil(async () => (seen = await queue(client)).length === n, SEEN_MS, 10);
  if (!ok) throw new Error(`${what}: etcd held ${seen.length} keys for the stock's lock, not ${n}`);
  return seen;
}

async function revoke(client: Etcd3, lease: string): Promise<void> {
  await client.leaseClient.leaseRevoke({ ID: lease });
}

function withEtcd<T>(ctx: FaultContext, use: (client: Etcd3) => Promise<T>): Promise<T> {
  const endpoints = ctx.cluster.info.etcd?.split(',');
  if (!endpoints) throw new Error('this cluster has no etcd');
  const client = openEtcd(endpoints);
  return use(client).finally(() => client.close());
}

/** The holder's lease revoked while it is frozen before its write; others sell N meanwhile. */
async function holderRevokedCase(ctx: FaultContext, strategy: string, fencing: 'unfenced' | 'fenced'): Promise<FaultRow> {
  const n = ctx.sizes.sell;
  const key = { scenario: 'etcd-lease', strategy, variant: `holder's lease revoked, ${fencing}`, store: 'mysql' as const };
  return runCase(ctx, key, ctx.sizes.initial, (c) =>
    withEtcd(ctx, async (client): Promise<Verdict> => {
      const [holderAt, ...sellers] = [0, 1, 2].map((i) => instance(ctx.cluster, i));
      const fence: CheckParams = fencing === 'fenced' ? { fenced: 1 } : {};
      const frozen = await freezeHolder(c, holderAt!, { ...fence, ...PARAMS, pause: 'before-write' });
      if (!frozen.frozen) return { expected: 'the holder stops at pause=before-write', holds: () => false, details: [holderText(frozen.answer)] };
      const [held] = await waitQueueLength(client, 1, 'the holder');
      await revoke(client, held!.lease);
      await waitQueueLength(client, 0, 'after the revoke');
      const sold = await sellThrough(c, sellers, n, { ...fence, ...PARAMS });
      resume(frozen.pid);
      const holder = await frozen.answer;
      const holderKey = outcomeKey(holder.outcome);
      const details = [holderText(holder), `sellers (app-1, app-2, after the revoke): ${answersText(sold)}`];
      if (fencing === 'unfenced') {
        return {
          expected: `oversold = N (${n}): the stale write restores the count it read`,
          details,
          holds: (m) => m.oversold === n && holderKey === '200' && m.undocumented === 0,
        };
      }
      return { expected: 'oversold 0; the holder answers 503 fenced', details, holds: (m) => isSafe(m) && holderKey === '503 fenced' && m.deducted === n };
    }),
  );
}

/** Sends `params` to instance `index`, which stops at pause=before-write once it holds the lock. */
function sendPaused(c: Case, ctx: FaultContext, index: number, role: string, params: CheckParams): { pid: number; answer: Promise<Sent> } {
  const at = instance(ctx.cluster, index);
  return { pid: pidOf(at), answer: c.send(at, role, { ...params, ...PARAMS, pause: 'before-write' }) };
}

/**
 * Jepsen's finding: H holds (frozen before its write); W queues behind it; the lab revokes W's
 * lease (W's key goes with it); C queues behind H; H writes and releases. C holds the lock now. The
 * recipe with its check after the wait refuses W (its key is gone); without it, W is told it holds
 * the lock too, and both write what they read: one unit oversold. With fenced=1 the older token of
 * the two, W's, is refused by the store either way.
 */
export async function waiterRevokedCase(ctx: FaultContext, strategy: string, fencing: 'unfenced' | 'fenced'): Promise<FaultRow> {
  const key = { scenario: 'etcd-lease', strategy, variant: `waiter's lease revoked, ${fencing}`, store: 'mysql' as const };
  const checks = strategy !== 'etcd-lock-no-recheck';
  return runCase(ctx, key, ctx.sizes.initial, (c) =>
    withEtcd(ctx, async (client): Promise<Verdict> => {
      const fence: CheckParams = fencing === 'fenced' ? { fenced: 1 } : {};
      const holder = await freezeHolder(c, instance(ctx.cluster, 0), { ...fence, ...PARAMS, pause: 'before-write' });
      if (!holder.frozen) return { expected: 'the holder stops at pause=before-write', holds: () => false, details: [holderText(holder.answer)] };
      await waitQueueLength(client, 1, 'the holder');
      const waiter = sendPaused(c, ctx, 1, 'waiter', fence);
      const [, queued] = await waitQueueLength(client, 2, 'the waiter queued');
      await revoke(client, queued!.lease);
      await waitQueueLength(client, 1, "after the waiter's revoke");
      const next = sendPaused(c, ctx, 2, 'next', fence);
      await waitQueueLength(client, 2, 'the next acquirer queued');
      resume(holder.pid);
      const holderAnswer = await holder.answer;
      // The next acquirer holds the lock and stops before its write; the waiter stops there too only if it was told it holds.
      const stopped = (pid: number) => isStopped(pid);
      let waiterAnswer: Sent | undefined;
      void waiter.answer.then((s) => (waiterAnswer = s));
      const settled = await pollUntil(() => stopped(next.pid) && (stopped(waiter.pid) || waiterAnswer !== undefined), FREEZE_TIMEOUT_MS, 5);
      if (!settled) throw new Error('the next acquirer did not stop before its write, or the waiter neither stopped nor answered');
      const waiterHeld = stopped(waiter.pid);
      // Both write what they read, the waiter first: the one written last is the stale one.
      resume(waiter.pid);
      const waiterSent = await waiter.answer;
      resume(next.pid);
      const nextSent = await next.answer;
      const waiterKey = outcomeKey(waiterSent.outcome);
      const nextKey = outcomeKey(nextSent.outcome);
      const details = [
        holderText(holderAnswer),
        `${holderText(waiterSent, 'waiter (app-1, lease revoked while queued)')}${waiterHeld ? ', after being told it holds the lock' : ''}`,
        holderText(nextSent, 'next (app-2)'),
      ];
      const facts = { waiterToldItHolds: waiterHeld };
      if (checks) {
        return {
          expected: 'the check after the wait refuses the waiter (its key is gone); the next acquirer sells; nothing oversold',
          details,
          facts,
          holds: (m) => isSafe(m) && !waiterHeld && waiterKey.startsWith('503') && nextKey === '200' && m.deducted === 2,
        };
      }
      if (fencing === 'unfenced') {
        return {
          expected: 'no check after the wait: the waiter is told it holds the lock beside the next acquirer; both write what they read: oversold 1',
          details,
          facts,
          holds: (m) => waiterHeld && waiterKey === '200' && nextKey === '200' && m.oversold === 1 && m.undocumented === 0,
        };
      }
      return {
        expected: "no check after the wait, but fenced: the waiter's older revision is refused by the store (503 fenced); nothing oversold",
        details,
        facts,
        // 503 fenced is answered only past the acquire: the waiter was told it holds the lock, whether the
        // store refused it at its claim (before its read: it never stops) or at its write.
        holds: (m) => isSafe(m) && waiterKey === '503 fenced' && nextKey === '200' && m.deducted === 2,
      };
    }),
  );
}

export const etcdLease: Scenario = {
  name: 'etcd-lease',
  description:
    'etcd locks whose lease the lab revokes (as `etcdctl lease revoke` would, or a lease that ran out while its keep-alives could not get through), with leases of ' +
    `${LONG_TTL_MS / 1000} s so that nothing else ends them. The holder's lease: the holder (app-0) stops before its write, the lab revokes its lease, N units are sold through app-1 and app-2, ` +
    'then the holder runs: unfenced its stale write undoes the N sales; fenced, the store refuses its create revision. ' +
    "A waiter's lease (Jepsen's etcd 3.4.3 finding, etcd issue 11456): the holder (app-0) stops before its write; a waiter (app-1) queues behind it and the lab revokes the waiter's lease; " +
    'a next acquirer (app-2) queues; the holder writes and releases. etcd-lock reads its own key after the wait, finds it gone, and refuses the waiter; ' +
    "etcd-lock-no-recheck tells the waiter it holds the lock beside the next acquirer, and both write what they read (oversold 1), unless fenced=1, where the waiter's older revision is refused.",
  async run(ctx) {
    const rows: FaultRow[] = [];
    if (ctx.wants('etcd-lock')) for (const f of ['unfenced', 'fenced'] as const) rows.push(await holderRevokedCase(ctx, 'etcd-lock', f));
    if (ctx.wants('etcd-lock')) rows.push(await waiterRevokedCase(ctx, 'etcd-lock', 'unfenced'));
    if (ctx.wants('etcd-lock-no-recheck')) for (const f of ['unfenced', 'fenced'] as const) rows.push(await waiterRevokedCase(ctx, 'etcd-lock-no-recheck', f));
    return rows;
  },
};
