// A short chaos run on the hosts topology (every server in a network namespace of its own; root
// only): partitions in Jepsen's shapes join the faults, drawn over the instances and every server
// (etcd and PostgreSQL among them). Seed 20261845 draws, in 55 s, a random halving while an
// instance is frozen, a majorities ring, two instances killed, MySQL, ZooKeeper and Redis frozen in
// turn, and a halving cut one way, among paused holders and RedLock masters killed or frozen. Strategies with no allowance to oversell (a single statement, fenced Redis and ZooKeeper
// locks) must stay exact through every cut.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchDeclared } from '../../faults/catalog-check.js';
import { isPartitionKind } from '../../faults/chaos/plan.js';
import { runChaos } from '../../faults/chaos/run.js';
import { chaosStrategies } from '../../faults/chaos/strategies.js';
import { LAB_INSTANCE_ENV } from '../../faults/lab-cluster.js';
import { freeClusterConfig, startCluster, type RunningCluster } from '../../src/cluster/cluster.js';
import { hasNetAdmin } from '../../src/net/hosts.js';
import { grudgeInForce } from '../../src/net/partition.js';
import { expectChaosHolds } from '../support/chaos-verdict.js';
import { removeTree } from '../../src/paths.js';

/** Three: a turn a cut strikes waits for its answers and a quiet network, so more would leave the last without a turn. */
const CHAOS_STRATEGIES = ['sql-update', 'redis-owned', 'zk-watch'];
const SEED = 20_261_845;

describe.skipIf(!hasNetAdmin())('chaos on the hosts topology (needs root)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-chaos-hosts-'));
  let cluster: RunningCluster;

  beforeAll(async () => {
    cluster = await startCluster({ config: await freeClusterConfig(dir, 3, 'hosts'), instanceEnv: { ...LAB_INSTANCE_ENV } });
  });
  afterAll(async () => {
    await cluster?.stop();
    removeTree(dir);
  });

  it('a 55 s chaos run (seed 20261845: a halving, a majorities ring and a one-way cut among kills and freezes): each cut recorded with its times and healed, nothing oversold, every sale answered, each strategy sells again', async () => {
    const strategies = chaosStrategies(await fetchDeclared(cluster.info.instances[0]!), CHAOS_STRATEGIES);
    const r = await runChaos(cluster, { seconds: 55, seed: SEED, strategies, load: { rate: 15, maxInFlight: 12 } }, () => undefined);
    const cuts = r.history.faults.filter((f) => isPartitionKind(f.kind));
    console.log(
      `[chaos hosts] cuts: ${cuts.map((f) => `${f.kind} ${(f.injectedMs / 1000).toFixed(1)}–${((f.partition?.healMs ?? NaN) / 1000).toFixed(1)} s (${f.partition?.text})${f.note ? `: ${f.note}` : ''}`).join(' | ')}`,
    );
    expect(r.history.hosts).toBe(true);
    expect(cuts.map((f) => f.kind)).toEqual(['partition-halves', 'partition-majorities-ring', 'partition-one-way']);
    for (const f of cuts) {
      expect(f.partition?.text, f.kind).toMatch(/drops/);
      expect(f.partition?.healMs, f.kind).toBeGreaterThan(f.injectedMs);
      expect(f.healedMs, f.kind).toBeDefined();
    }
    // one cut at a time: each healed before the next was made
    for (let i = 1; i < cuts.length; i++) expect(cuts[i]!.injectedMs).toBeGreaterThanOrEqual(cuts[i - 1]!.partition!.healMs!);
    expect(await grudgeInForce(cluster.layout!)).toEqual({});
    expectChaosHolds(r, 'chaos hosts');
    expect(Object.fromEntries(r.verdict.strategies.map((v) => [v.strategy, { oversold: v.oversold, exact: v.exact }]))).toEqual(
      Object.fromEntries(CHAOS_STRATEGIES.map((s) => [s, { oversold: 0, exact: true }])),
    );
    expect(r.verdict.ok).toBe(true);
  }, 240_000);
});
