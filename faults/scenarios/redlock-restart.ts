// redlock-restart: Kleppmann's sequence against RedLock's majority. Two of five masters are down
// when A acquires, so A holds exactly three; one of the three restarts empty; the two come back;
// B now finds three masters that never heard of A. With the restart delayed past the lease, or
// with every write fsync'd, the restarted master still refuses B.
import type { RedlockMastersConfig } from '../../src/cluster/layout.js';
import { runCase, type Verdict } from '../case.js';
import { instance } from '../cluster-ops.js';
import { isSold, outcomeKey, type Sent } from '../client.js';
import { freezeHolder, holderText } from '../holder.js';
import { resume } from '../process-state.js';
import { setRedlockMasters, waitRedlockConnected } from '../redlock-masters.js';
import { isRefusal } from '../../src/http/answers.js';
import { isSafe, type FaultRow } from '../row.js';
import type { FaultContext, Scenario } from '../scenario.js';

/** A's lease: comfortably longer than the case's steps while A is frozen (about 2 s). */
const TTL_MS = 6_000;
const SECOND_WAIT_MS = 1_500;

interface Variant {
  name: string;
  mode: RedlockMastersConfig;
  expectDoubleGrant: boolean;
}

const VARIANTS: readonly Variant[] = [
  { name: 'in memory, restarted at once', mode: { persistence: 'none', restartDelayMs: 0 }, expectDoubleGrant: true },
  { name: `restart delayed ${TTL_MS + 500} ms (> ttl)`, mode: { persistence: 'none', restartDelayMs: TTL_MS + 500 }, expectDoubleGrant: false },
  { name: 'appendfsync always', mode: { persistence: 'fsync', restartDelayMs: 0 }, expectDoubleGrant: false },
];

const DEFAULT_MODE: RedlockMastersConfig = { persistence: 'none', restartDelayMs: 0 };

async function restartCase(ctx: FaultContext, v: Variant): Promise<FaultRow> {
  const key = { scenario: 'redlock-restart', strategy: 'redlock', variant: v.name, store: 'mysql' as const };
  return runCase(ctx, key, ctx.sizes.initial, async (c): Promise<Verdict> => {
    const [aAt, bAt] = [instance(ctx.cluster, 0), instance(ctx.cluster, 1)];
    const masters = ctx.cluster.servers.redlock;
    const [m0, m1, m2, m3, m4] = masters;
    if (!m0 || !m1 || !m2 || !m3 || !m4) throw new Error('redlock-restart needs five RedLock masters');
    await setRedlockMasters(ctx.cluster, v.mode);
    const restarts: Promise<void>[] = [];
    try {
      // Two masters unreachable: A's majority is exactly m0, m1, m2.
      await Promise.all([m3.kill(), m4.kill()]);
      await waitRedlockConnected(ctx.cluster, aAt.server.port);
      const a = await freezeHolder(c, aAt, { pause: 'after-acquire', ttlMs: TTL_MS });
      if (!a.frozen) return { expected: 'A stops at pause=after-acquire', holds: () => false, details: [holderText(a.answer, 'A')] };
      try {
        // One of A's three restarts (empty, unless fsync'd), and the two come back; a delayed restart
        // is waited for in the background while B tries.
        await m2.kill();
        restarts.push(m2.start(), m3.start(), m4.start());
        if (v.mode.restartDelayMs === 0) await Promise.all(restarts);
        await waitRedlockConnected(ctx.cluster, bAt.server.port);
        const b = await freezeHolder(c, bAt, { pause: 'before-write', ttlMs: TTL_MS, waitMs: SECOND_WAIT_MS });
        // A reads and writes; B, if it got the lock, then writes the count it read before A's write.
        resume(a.pid);
        const answers: Sent[] = [await a.answer];
        if (b.frozen) {
          resume(b.pid);
          answers.push(await b.answer);
        } else answers.push(b.answer);
        const holders = answers.filter((s) => isSold(s.outcome)).length;
        const bKey = outcomeKey(answers[1]!.outcome);
        return {
          expected: v.expectDoubleGrant ? 'B gets 3 of 5 too: 2 holders, 1 unit oversold' : 'B is refused (a 503): 1 holder, nothing oversold',
          details: [holderText(answers[0]!, 'A (app-0)'), holderText(answers[1]!, 'B (app-1)'), `holders at once: ${holders}`],
          facts: { holders },
          holds: (m) =>
            v.expectDoubleGrant
              ? holders === 2 && m.oversold === 1 && m.refusedButCommitted === 0 && m.undocumented === 0
              : isSafe(m) && holders === 1 && isRefusal(bKey),
        };
      } finally {
        resume(a.pid);
      }
    } finally {
      await Promise.allSettled(restarts);
      for (const m of masters) if (m.pid === undefined) await m.start();
      await setRedlockMasters(ctx.cluster, DEFAULT_MODE);
    }
  });
}

export const redlockRestart: Scenario = {
  name: 'redlock-restart',
  topology: 'replicated',
  description:
    "Kleppmann's sequence on the five RedLock masters. Masters 3 and 4 are killed; A (app-0) takes redlock (ttlMs " +
    TTL_MS +
    ') on the other three and stops itself ' +
    '(pause=after-acquire); master 2 is killed and restarted, and 3 and 4 come back; B (app-1, waitMs ' +
    SECOND_WAIT_MS +
    ') asks for the lock and stops after its read if it gets it ' +
    '(pause=before-write); A writes, then B. In memory and restarted at once, master 2 forgot A: B holds 2, 3 and 4, and one unit is sold twice. ' +
    "With the restart held back past the ttl, or with appendfsync always (master 2 reloads A's key), B gets at most two and is refused.",
  async run(ctx) {
    const rows: FaultRow[] = [];
    if (!ctx.wants('redlock')) return rows;
    for (const v of VARIANTS) rows.push(await restartCase(ctx, v));
    return rows;
  },
};
