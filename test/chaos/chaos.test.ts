// A short chaos run (fixed seed) and a short soak on a private cluster with the fault hooks on.
// Safety is asserted exactly (the checker's verdict per strategy, no phantom sale, nothing left
// held); recovery after the last heal gets a stated bound and its figures are printed. The soak is
// far too short to judge growth: it must say so, name the least run that can, and fail nothing
// (test/unit/soak-verdict.test.ts judges growth over made-up series).
import { describe, expect, it } from 'vitest';
import { fetchDeclared } from '../../faults/catalog-check.js';
import { runChaos } from '../../faults/chaos/run.js';
import { chaosStrategies } from '../../faults/chaos/strategies.js';
import { LAB_INSTANCE_ENV } from '../../faults/lab-cluster.js';
import { runSoak } from '../../faults/soak/run.js';
import { expectChaosHolds } from '../support/chaos-verdict.js';
import { withOwnCluster } from '../support/cluster.js';

const own = withOwnCluster({ instances: 3, instanceEnv: { ...LAB_INSTANCE_ENV } });
/** One of each kind: a single statement, a script, a fenced Redis lease, a fenced ZooKeeper lock, and RedLock (no fencing: an oversell under a pause is reported, not failed). */
const CHAOS_STRATEGIES = ['sql-update', 'redis-lua-decr', 'redis-owned', 'zk-ephemeral', 'redlock'];
const SEED = 20_261_132;

describe('chaos and soak', () => {
  it('a 45 s chaos run (seed 20261132: ZooKeeper frozen and killed among the rest): nothing oversold, every sale answered, nothing left held, each strategy sells again after the last heal', async () => {
    const cluster = own.current;
    const strategies = chaosStrategies(await fetchDeclared(cluster.info.instances[0]!), CHAOS_STRATEGIES);
    const r = await runChaos(cluster, { seconds: 45, seed: SEED, strategies, load: { rate: 15, maxInFlight: 12 } }, () => undefined);
    expectChaosHolds(r, 'chaos');
  }, 240_000);

  it('a 30 s soak: nothing oversold, every answer documented; too short to judge growth, and it says so without failing', async () => {
    const cluster = own.current;
    const strategies = chaosStrategies(await fetchDeclared(cluster.info.instances[0]!), ['sql-for-update', 'zk-ephemeral', 'redis-owned']);
    const r = await runSoak(cluster, { minutes: 0.5, strategies, sampleEveryMs: 5_000, turnMs: 10_000 }, () => undefined);
    for (const s of r.slopes) console.log(`[soak] ${s.resource}: ${s.first.toFixed(1)} → ${s.last.toFixed(1)}, ${s.perMinute.toFixed(2)}/min (bound ${s.bound ? `${s.bound.perMinute}/min and +${s.bound.growth}` : 'none'})`);
    expect(r.verdict.failures).toEqual([]);
    // One sample every 5 s over the 30 s, and one after the last turn.
    expect(r.samples.length).toBeGreaterThanOrEqual(6);
    console.log(`[soak] growth: ${JSON.stringify(r.growth)}`);
    expect(r.growth).toMatchObject({ judged: false });
    if (!r.growth.judged) expect(r.growth.leastMinutes).toBeGreaterThan(0.5);
    expect(r.slopes.filter((s) => s.grows)).toEqual([]);
    expect(r.failures).toEqual([]);
    expect(r.ok).toBe(true);
  }, 180_000);
});
