// The course's flawed steps, each flaw built by sequencing on a private cluster (instances are
// frozen at a pause point, killed and restarted): a request stops its own instance inside the
// lock (FAULT_INJECTION=1), the test does what the flaw needs meanwhile, then kills or resumes it.
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetStock } from '../../bench/race.js';
import { unitsLeft } from '../../bench/stores.js';
import { isStopped, resume } from '../../faults/process-state.js';
import { pollUntil, sleep } from '../../src/time.js';
import { withOwnCluster } from '../support/cluster.js';
import { getJson } from '../support/lock-helpers.js';
import { expectDocumented } from '../support/race-checks.js';
import { stockLockKey, type Answer } from '../support/redis-helpers.js';

const own = withOwnCluster({ instances: 3, instanceEnv: { FAULT_INJECTION: '1' } });
const LOCK_KEY = stockLockKey('string');

/** One GET /check/lock with any parameters (pause=… included), its answer kept. */
async function send(base: string, strategy: string, params: Record<string, string | number>): Promise<Answer> {
  const q = new URLSearchParams({ strategy });
  for (const [k, v] of Object.entries(params)) q.set(k, String(v));
  const { status, body } = await getJson(`${base}/check/lock?${q}`);
  return { status, error: body.error as string | undefined, warning: body.warning as string | undefined };
}

/** Sends `params` (with a pause=…) to instance `i` and resolves once that instance has stopped itself there. */
async function freezeAt(i: number, strategy: string, params: Record<string, string | number>): Promise<{ pid: number; answer: Promise<Answer | undefined> }> {
  const server = own.current.servers.instances[i]!;
  const pid = server.pid;
  if (pid === undefined) throw new Error(`instance ${i} is not running`);
  let answered: Answer | undefined;
  const answer = send(own.current.info.instances[i]!, strategy, params).then(
    (a) => (answered = a),
    () => undefined, // killed while frozen: no answer
  );
  await pollUntil(() => answered !== undefined || isStopped(pid), 10_000, 5);
  if (!isStopped(pid)) throw new Error(`instance ${i} did not stop at ${String(params.pause)}; answered ${JSON.stringify(answered)}`);
  return { pid, answer };
}

async function everyInstanceUp(): Promise<void> {
  for (const s of own.current.servers.instances) if (s.pid === undefined) await s.start();
}

describe('the course’s flawed steps, sequenced', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(own.current.info.redis);
  });
  afterAll(() => redis.disconnect());
  // A case that failed with its instance still frozen must not leave it frozen for the next.
  afterEach(() => {
    for (const s of own.current.servers.instances) if (s.pid !== undefined && isStopped(s.pid)) resume(s.pid);
  });

  describe('redis-setnx-expire: a holder killed between SETNX and EXPIRE', () => {
    const TTL_MS = 500;

    it('leaves a lock with no expiry (PTTL -1): every instance answers 503 lock_timeout until a reset clears it', async () => {
      await everyInstanceUp();
      const { info, servers } = own.current;
      await resetStock(info.instances[1]!, 10);
      const holder = await freezeAt(0, 'redis-setnx-expire', { pause: 'after-setnx', ttlMs: TTL_MS });
      expect(await redis.pttl(LOCK_KEY)).toBe(-1);
      await servers.instances[0]!.kill();
      await holder.answer;
      await servers.instances[0]!.start();

      // Long past ttlMs, several rounds, each instance asked with a bounded wait.
      const WAIT_MS = 300;
      const ROUNDS = 4;
      const t0 = Date.now();
      const answers: Answer[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        await sleep(TTL_MS);
        answers.push(...(await Promise.all(info.instances.map((base) => send(base, 'redis-setnx-expire', { waitMs: WAIT_MS, ttlMs: TTL_MS })))));
        expect(await redis.pttl(LOCK_KEY)).toBe(-1);
      }
      const lastedS = ((Date.now() - t0) / 1000).toFixed(1);
      console.log(`[redis-setnx-expire] PTTL -1; ${answers.length} answers over ${info.instances.length} instances for ${lastedS} s (ttlMs ${TTL_MS}): ${JSON.stringify(answers.map((a) => `${a.status} ${a.error}`))}`);
      expectDocumented(answers);
      expect(answers.map((a) => [a.status, a.error])).toEqual(Array(ROUNDS * info.instances.length).fill([503, 'lock_timeout']));
      expect(await unitsLeft(info, 'mysql')).toBe(10);

      // Only a reset (which deletes every lock key) frees it.
      await resetStock(info.instances[1]!, 10);
      expect(await send(info.instances[2]!, 'redis-setnx-expire', { waitMs: WAIT_MS, ttlMs: TTL_MS })).toEqual({ status: 200, error: undefined, warning: undefined });
    });

    it('redis-setnx-ex, the same crash (right after its one SET NX PX): the lease expires and the next request gets the lock', async () => {
      await everyInstanceUp();
      const { info, servers } = own.current;
      await resetStock(info.instances[1]!, 10);
      const holder = await freezeAt(0, 'redis-setnx-ex', { pause: 'after-acquire', ttlMs: TTL_MS });
      const pttl = await redis.pttl(LOCK_KEY);
      expect(pttl).toBeGreaterThan(0);
      await servers.instances[0]!.kill();
      await holder.answer;
      const t0 = Date.now();
      const next = await send(info.instances[1]!, 'redis-setnx-ex', { waitMs: 5_000, ttlMs: TTL_MS });
      const healedMs = Date.now() - t0;
      console.log(`[redis-setnx-ex] PTTL ${pttl} ms at the crash; next request got the lock after ${healedMs} ms`);
      expect(next).toEqual({ status: 200, error: undefined, warning: undefined });
      expect(healedMs).toBeLessThan(TTL_MS + 1_000);
      await servers.instances[0]!.start();
    });
  });
});
