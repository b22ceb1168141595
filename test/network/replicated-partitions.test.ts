// Sentinel's split brain (issue: hosts and partitions) on a private `hosts,replicated` cluster: the
// old master and app-0 cut from the Sentinels, the replica and the other instances. Without
// min-replicas both masters grant the lock (2 holders, 1 oversold), and fenced=1 refuses the second
// claim of a colliding token; with min-replicas-to-write the old master stops accepting writes
// within a stated window, and app-0 is then refused. On the same cluster, the ZooKeeper leader cut
// off from the other two nodes: exact, and selling again within the bound. Needs root (CAP_NET_ADMIN).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAB_INSTANCE_ENV } from '../../faults/lab-cluster.js';
import { isSafe, type FaultRow } from '../../faults/row.js';
import type { FaultContext } from '../../faults/scenario.js';
import { minReplicasCase, splitBrainCase } from '../../faults/scenarios/split-brain.js';
import { zkLeaderPartition } from '../../faults/scenarios/zk-leader-partition.js';
import { isRefusal } from '../../src/http/answers.js';
import { hasNetAdmin } from '../../src/net/hosts.js';
import { withOwnCluster } from '../support/cluster.js';
import { removeTree } from '../../src/paths.js';

const figures = (r: FaultRow) =>
  JSON.stringify({
    variant: r.variant,
    sold: r.sold,
    deducted: r.deducted,
    oversold: r.oversold,
    recoverMs: r.recoverMs,
    facts: r.facts,
    answers: r.byRole,
    details: r.details,
  });

describe.skipIf(!hasNetAdmin())('the hosts,replicated topology (needs root): Sentinel split brain, a ZooKeeper leader cut off', () => {
  const own = withOwnCluster({ instances: 3, topology: 'hosts,replicated', instanceEnv: { ...LAB_INSTANCE_ENV } });
  let workDir = '';
  beforeAll(() => void (workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-split-brain-test-'))));
  afterAll(() => removeTree(workDir));
  const ctx = (): FaultContext => ({ cluster: own.current, sizes: { initial: 30, sell: 5, inFlight: 3 }, wants: () => true, log: () => undefined, workDir });

  it('without min-replicas both masters grant the lock: 2 holders, 1 oversold; healed, the old master is demoted and its grant is gone; fenced, the colliding token is refused', async () => {
    const unfenced = await splitBrainCase(ctx(), 'unfenced');
    console.log(
      `[liveness] split brain: promoted ${unfenced.recoverMs} ms after the cut (bound ${unfenced.recoverBoundMs} ms; the cut's rules in place ${unfenced.facts.cutInstallMs} ms after its call); old master demoted ${unfenced.facts.demotedMs} ms after the heal, settled at ${unfenced.facts.settledMs} ms`,
    );
    expect(unfenced.facts, figures(unfenced)).toMatchObject({ bothHeld: true, lost: true, demoted: true, stuck: '503 redis_unavailable' });
    expect(unfenced.oversold, figures(unfenced)).toBe(1);
    expect(unfenced.refusedButCommitted + unfenced.undocumented, figures(unfenced)).toBe(0);
    expect(unfenced.asExpected, figures(unfenced)).toBe(true);

    const fenced = await splitBrainCase(ctx(), 'fenced');
    expect(isSafe(fenced), figures(fenced)).toBe(true);
    expect(fenced.facts, figures(fenced)).toMatchObject({ bothHeld: true, sameToken: true, a: '503 fenced', b: '200', demoted: true });
    expect(fenced.asExpected, figures(fenced)).toBe(true);
  });

  it('with min-replicas-to-write 1 the cut-off master stops accepting writes within the stated window, and app-0 is then refused, not granted', async () => {
    const row = await minReplicasCase(ctx());
    console.log(
      `[liveness] min-replicas: the old master refused writes ${row.recoverMs} ms after the cut (bound ${row.recoverBoundMs} ms), ${row.facts.acceptedAfterCut} accepted before; promoted at ${row.facts.promotedMs} ms; the cut's rules in place ${row.facts.cutInstallMs} ms after its call`,
    );
    expect(row.recoverMs, figures(row)).not.toBeNull();
    expect(row.recoverMs!, figures(row)).toBeLessThanOrEqual(row.recoverBoundMs!);
    expect(row.facts, figures(row)).toMatchObject({ majority: '200', demoted: true, windowWritesLost: true });
    expect(row.oversold, figures(row)).toBe(0);
    expect(row.answers['200'], figures(row)).toBe(1);
    // Not granted, and refused as the service documents it.
    expect(isRefusal(String(row.facts.minority)), figures(row)).toBe(true);
    expect(row.asExpected, figures(row)).toBe(true);
  });

  it('ZooKeeper: the leader cut off from the other two nodes; sales stay exact and resume within the bound (zk-watch)', async () => {
    const [row] = await zkLeaderPartition.run({ ...ctx(), wants: (s) => s === 'zk-watch' });
    console.log(`[liveness] zk leader cut off: ${row!.details[0]}; sales again ${row!.recoverMs} ms after the cut (bound ${row!.recoverBoundMs} ms)`);
    expect(isSafe(row!), figures(row!)).toBe(true);
    expect(row!.facts.electedMs, figures(row!)).toBeGreaterThan(0);
    expect(row!.asExpected, figures(row!)).toBe(true);
  });
});
