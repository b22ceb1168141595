// fair-dead-waiter: Redisson's fair lock and a waiter whose instance dies in line (course §2.10.2).
// The line is first come, first served, so the lock goes to the first in line even when it is
// dead; it is dropped only once its time in line (STAY_IN_LINE_MS without asking again) runs out,
// and everyone behind it waits that long. Sequenced: a holder frozen inside the lock, the waiters
// seen in the line's key in Redis, then their instance killed, then the holder let go.
import type { Redis } from 'ioredis';
import { fairLockKeys } from '../../src/locks/redis/keys.js';
import { STAY_IN_LINE_MS } from '../../src/locks/redis/redisson/fair.js';
import { STOCK_LOCK_RESOURCE } from '../../src/stock/product.js';
import { pollUntil } from '../../src/time.js';
import { runCase, type Verdict } from '../case.js';
import { instance, type Instance } from '../cluster-ops.js';
import { isSold, outcomeKey } from '../client.js';
import { freezeHolder, holderText } from '../holder.js';
import { resume } from '../process-state.js';
import { openRedis } from '../redis-inspect.js';
import { isSafe, type FaultRow } from '../row.js';
import type { FaultContext, Scenario } from '../scenario.js';

const QUEUE_KEY = fairLockKeys(STOCK_LOCK_RESOURCE).queue;
const LEASE = { ttlMs: 30_000, waitMs: 20_000 };
/** A waiter asks again every third of its time in line (fair.ts): a dead one lapses between 2/3 and 3/3 of it after its death. */
const EARLIEST_LAPSE_MS = STAY_IN_LINE_MS - Math.floor(STAY_IN_LINE_MS / 3);
const SLACK_MS = 1_000;

/** The line's owners in order, read from Redis. */
const line = (redis: Redis): Promise<string[]> => redis.zrange(QUEUE_KEY, 0, -1);
const ownerPrefix = (i: Instance): string => `app-${i.server.port}:`;

async function untilInLine(redis: Redis, what: string, check: (owners: string[]) => boolean): Promise<string[]> {
  let owners: string[] = [];
  if (!(await pollUntil(async () => check((owners = await line(redis))), 10_000, 10))) throw new Error(`${what}: the line is ${JSON.stringify(owners)}`);
  return owners;
}

export async function deadWaiterCase(ctx: FaultContext, dead: number): Promise<FaultRow> {
  const key = { scenario: 'fair-dead-waiter', strategy: 'redis-fair', variant: `${dead} dead waiter(s) ahead`, store: 'mysql' as const };
  return runCase(ctx, key, ctx.sizes.initial, async (c): Promise<Verdict> => {
    const [holderAt, deadAt, nextAt] = [0, 1, 2].map((i) => instance(ctx.cluster, i)) as [Instance, Instance, Instance];
    const redis = await openRedis(ctx.cluster);
    try {
      const holder = await freezeHolder(c, holderAt, { pause: 'after-acquire', ...LEASE });
      if (!holder.frozen) throw new Error(holderText(holder.answer));
      // The waiters to be killed join the line first, one at a time, so their places are known.
      for (let k = 1; k <= dead; k++) {
        void c.send(deadAt, 'dead', LEASE);
        await untilInLine(redis, `dead waiter ${k} in line`, (o) => o.filter((x) => x.startsWith(ownerPrefix(deadAt))).length === k);
      }
      const next = c.send(nextAt, 'next', LEASE);
      const owners = await untilInLine(redis, 'the next waiter in line', (o) => o.some((x) => x.startsWith(ownerPrefix(nextAt))));
      if (dead > 0) await deadAt.server.kill();
      const killedAt = Date.now();
      resume(holder.pid);
      const holderAnswer = await holder.answer;
      const releasedAt = holderAnswer.startedAt + holderAnswer.ms;
      const nextAnswer = await next;
      const stallMs = nextAnswer.startedAt + nextAnswer.ms - releasedAt;
      if (dead > 0) await deadAt.server.start();
      const [lo, hi] = dead === 0 ? [0, SLACK_MS] : [EARLIEST_LAPSE_MS - (releasedAt - killedAt) - SLACK_MS, STAY_IN_LINE_MS + SLACK_MS];
      return {
        expected:
          dead === 0
            ? `the next waiter gets the lock at the release (≤ ${SLACK_MS} ms)`
            : `the next waiter waits out the dead waiters' time in line (${STAY_IN_LINE_MS} ms, less what had run before the release), then sells`,
        details: [
          `line before the kill: ${owners.map((o) => (o.startsWith(ownerPrefix(deadAt)) ? 'dead' : o.startsWith(ownerPrefix(nextAt)) ? 'next' : '?')).join(', ')}`,
          holderText(holderAnswer, 'holder (app-0)'),
          `next (app-2): ${outcomeKey(nextAnswer.outcome)}, ${stallMs} ms after the holder's answer (killed ${releasedAt - killedAt} ms before it)`,
        ],
        facts: { dead, stallMs },
        recoverMs: stallMs,
        recoverBoundMs: hi,
        holds: (m) => isSafe(m) && isSold(nextAnswer.outcome) && stallMs >= lo && stallMs <= hi,
      };
    } finally {
      redis.disconnect();
    }
  });
}

export const fairDeadWaiter: Scenario = {
  name: 'fair-dead-waiter',
  description:
    `Redisson's fair lock (redis-fair, course §2.10.2) with waiters whose instance dies in line. A holder (app-0) stops inside the lock (pause=after-acquire, ttlMs ${LEASE.ttlMs}); 0, 1 or 2 waiters on app-1 join the line, then one on app-2 (each seen in the line's key in Redis); app-1 is killed and the holder let go. ` +
    `"recover" is the time from the holder's answer to the next waiter's: the dead waiters stay first in line until their time in line (${STAY_IN_LINE_MS} ms without asking again; they ask every third of it) runs out.`,
  async run(ctx) {
    const rows: FaultRow[] = [];
    if (!ctx.wants('redis-fair')) return rows;
    for (const dead of [0, 1, 2]) rows.push(await deadWaiterCase(ctx, dead));
    return rows;
  },
};
