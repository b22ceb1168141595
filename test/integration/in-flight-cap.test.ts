// The in-flight cap (MAX_IN_FLIGHT): past it, an instance refuses at once with 503 busy and sells
// nothing, for a deduction and for the /test/ routes alike. The cap is filled by explicit
// sequencing: two deductions wait on the stock row, locked from outside, before the third is sent.
import { describe, expect, it } from 'vitest';
import { resetStock } from '../../src/load/race.js';
import { unitsLeft } from '../../src/cluster/stores.js';
import { pollUntil } from '../../src/time.js';
import { withOwnCluster } from '../support/cluster.js';
import { getJson } from '../support/lock-helpers.js';
import { holdRowLock } from '../support/row-lock.js';

const MAX_IN_FLIGHT = 2;
const own = withOwnCluster({ instances: 1, instanceEnv: { MAX_IN_FLIGHT: String(MAX_IN_FLIGHT) } });

/** A refusal at the cap is decided before any work: far below any lock or dependency wait. */
const BUSY_BOUND_MS = 1_000;

describe(`an instance with MAX_IN_FLIGHT=${MAX_IN_FLIGHT}`, () => {
  it('refuses one more at once with 503 busy, sells nothing for it, caps the /test/ routes the same, and admits again once the two are done', async () => {
    const { info } = own.current;
    const base = info.instances[0]!;
    await resetStock(base, 10);
    const deduct = (query: string, id: string) => getJson(`${base}/check/lock?${query}`, { 'X-Request-Id': id });
    const holder = await holdRowLock(info.mysql);
    const inFlight = Promise.all(['held-1', 'held-2'].map((id) => deduct('strategy=sql-for-update&waitMs=10000', id)));
    const atTheCap = async () => {
      try {
        // Both admitted and in flight: each waits on the row lock with a pooled connection.
        expect(await pollUntil(async () => (await holder.lockWaits()) === MAX_IN_FLIGHT, 5_000)).toBe(true);
        // A deduction that waits on nothing (the Redis stock), which only the cap can refuse.
        const over = await deduct('strategy=redis-lua-decr', 'over-cap');
        const demo = await getJson(`${base}/test/countdown?count=5`);
        return { over, demo };
      } finally {
        await holder.release();
      }
    };
    const { over, demo } = await atTheCap();
    console.log(
      `[in-flight] at the cap of ${MAX_IN_FLIGHT}: a deduction ${over.status} ${String(over.body.error)} in ${over.ms} ms, /test/countdown ${demo.status} ${String(demo.body.error)} in ${demo.ms} ms (bound ${BUSY_BOUND_MS} ms)`,
    );
    expect({ status: over.status, error: over.body.error }).toEqual({ status: 503, error: 'busy' });
    expect(over.ms).toBeLessThan(BUSY_BOUND_MS);
    expect({ status: demo.status, error: demo.body.error }).toEqual({ status: 503, error: 'busy' });
    expect(demo.ms).toBeLessThan(BUSY_BOUND_MS);

    expect((await inFlight).map((r) => r.status)).toEqual([200, 200]);
    expect((await getJson(`${base}/sales`)).body.sales).toEqual({ 'held-1': 1, 'held-2': 1 });
    expect(await unitsLeft(info, 'mysql')).toBe(8);
    expect(await unitsLeft(info, 'redis')).toBe(10);
    // The cap counts what is in flight, not what was ever admitted.
    expect((await deduct('strategy=redis-lua-decr', 'after')).status).toBe(200);
    expect((await getJson(`${base}/test/countdown?count=5`)).status).toBe(200);
  });
});
