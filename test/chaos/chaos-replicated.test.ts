// A short chaos run on the replicated topology (fixed seed): Sentinel failovers and a ZooKeeper
// leader kill among the rest. A fenced Redis lease and a ZooKeeper lock must stay exact through
// them; the Redis script's stock lives on the failed-over master, so writes a failover loses are
// reported, not failed; a sale behind a refusal fails any strategy.
import { describe, expect, it } from 'vitest';
import { fetchDeclared } from '../../faults/catalog-check.js';
import { runChaos } from '../../faults/chaos/run.js';
import { chaosStrategies } from '../../faults/chaos/strategies.js';
import { LAB_INSTANCE_ENV } from '../../faults/lab-cluster.js';
import { expectChaosHolds } from '../support/chaos-verdict.js';
import { withOwnCluster } from '../support/cluster.js';

const own = withOwnCluster({ instances: 3, topology: 'replicated', instanceEnv: { ...LAB_INSTANCE_ENV } });
const CHAOS_STRATEGIES = ['sql-update', 'redis-lua-decr', 'redis-owned', 'zk-watch'];
/** Its schedule: a failover first, then the leader killed, the MySQL frozen, a paused holder, a second failover, a frozen master, a frozen instance. */
const SEED = 20_261_215;

describe('chaos on the replicated topology', () => {
  it('a 45 s chaos run (seed 20261215: two Sentinel failovers and a ZooKeeper leader kill): fenced locks exact, every sale answered, nothing left held, each strategy sells again', async () => {
    const cluster = own.current;
    const strategies = chaosStrategies(await fetchDeclared(cluster.info.instances[0]!), CHAOS_STRATEGIES);
    const r = await runChaos(cluster, { seconds: 45, seed: SEED, strategies, load: { rate: 15, maxInFlight: 12 } }, () => undefined);
    expectChaosHolds(r, 'chaos replicated');
    // the faults this topology adds did strike: a replica promoted, the leader found and killed
    const failovers = r.history.faults.filter((f) => f.kind === 'failover-redis');
    expect(failovers.length).toBeGreaterThan(0);
    expect(
      failovers.every((f) => f.healedMs !== undefined && /promoted after/.test(f.note ?? '')),
      JSON.stringify(failovers),
    ).toBe(true);
    expect(r.history.faults.filter((f) => f.kind === 'kill-zookeeper-leader' && f.healedMs !== undefined).length).toBeGreaterThan(0);
    // the fenced lease must not lean on the failover allowance
    expect(r.verdict.strategies.find((v) => v.strategy === 'redis-owned')).toMatchObject({ fenced: true, exact: true });
  }, 300_000);
});
