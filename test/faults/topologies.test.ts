// The replicated topologies (issue 12) on a private replicated cluster with the fault hooks on: one
// case per scenario of `npm run faults`, booted once. The failover must show what the course
// predicts (the lock lost, one unit oversold); RedLock, the delayed restart, fsync and the ZooKeeper
// ensemble must stay exact. Liveness (promotion, recovery) gets a bound and is printed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LAB_INSTANCE_ENV } from '../../faults/lab-cluster.js';
import { isSafe, type FaultRow } from '../../faults/row.js';
import type { FaultContext, Scenario } from '../../faults/scenario.js';
import { FAILOVER_LOCK, redisFailover } from '../../faults/scenarios/redis-failover.js';
import { redlockRestart } from '../../faults/scenarios/redlock-restart.js';
import { zkLeaderLoss } from '../../faults/scenarios/zk-leader-loss.js';
import { resume } from '../../faults/process-state.js';
import { freezeRedis } from '../../faults/redis-inspect.js';
import { redisAt, redisRoles } from '../../faults/replication.js';
import { SENTINEL_MASTER_NAME } from '../../src/cluster/layout.js';
import { connectMainRedis, waitReady } from '../../src/redis-client/connect.js';
import { pollUntil } from '../../src/time.js';
import { withOwnCluster } from '../support/cluster.js';
import { removeTree } from '../../src/paths.js';

const own = withOwnCluster({ instances: 3, topology: 'replicated', instanceEnv: { ...LAB_INSTANCE_ENV } });
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-topologies-test-'));
afterAll(() => removeTree(workDir));

async function run(scenario: Scenario, ...strategies: string[]): Promise<FaultRow[]> {
  const ctx: FaultContext = {
    cluster: own.current,
    sizes: { initial: 30, sell: 5, inFlight: 3 },
    wants: (s) => strategies.includes(s),
    log: () => undefined,
    workDir,
  };
  const rows = await scenario.run(ctx);
  expect(rows.length).toBeGreaterThan(0);
  return rows;
}

const figures = (r: FaultRow) => ({
  variant: r.variant,
  sold: r.sold,
  deducted: r.deducted,
  oversold: r.oversold,
  facts: r.facts,
  answers: r.byRole,
  details: r.details,
});

describe('replicated topologies', () => {
  it('a Redis failover loses a held lock (2 holders, 1 oversold, as §2.9 predicts); RedLock with a master killed stays exact', async () => {
    const [single, redlock] = await run(redisFailover, FAILOVER_LOCK, 'redlock');
    console.log(`[liveness] failover: replica promoted ${single!.recoverMs} ms after the kill (bound ${single!.recoverBoundMs} ms); ${single!.details.at(-1)}`);
    expect(single!.facts, JSON.stringify(figures(single!))).toMatchObject({ lockOnMaster: true, heldBack: true, holders: 2, rejoined: true });
    expect(single!.oversold, JSON.stringify(figures(single!))).toBe(1);
    expect(single!.refusedButCommitted + single!.undocumented).toBe(0);
    expect(single!.recoverMs).not.toBeNull();
    expect(isSafe(redlock!), JSON.stringify(figures(redlock!))).toBe(true);
    expect(redlock!.facts.holders).toBe(1);
    expect(redlock!.asExpected, JSON.stringify(figures(redlock!))).toBe(true);
  });

  it('a RedLock master restarted empty during a hold grants the lock twice; a delayed restart or fsync refuses the second client', async () => {
    const rows = await run(redlockRestart, 'redlock');
    const [inMemory, delayed, fsynced] = rows;
    expect(inMemory!.facts.holders, JSON.stringify(figures(inMemory!))).toBe(2);
    expect(inMemory!.oversold).toBe(1);
    for (const r of [delayed!, fsynced!]) {
      expect(isSafe(r), JSON.stringify(figures(r))).toBe(true);
      expect(r.facts.holders, JSON.stringify(figures(r))).toBe(1);
      expect(r.asExpected, JSON.stringify(figures(r))).toBe(true);
    }
  });

  it('zk-watch stays exact while the ensemble loses its leader, and sells again after the election', async () => {
    const [row] = await run(zkLeaderLoss, 'zk-watch');
    console.log(
      `[liveness] zk leader loss: new leader after ${row!.facts.electedMs} ms, sales again after ${row!.recoverMs} ms (bound ${row!.recoverBoundMs} ms), sold ${row!.sold} of ${row!.initial}, 503s ${JSON.stringify(row!.refused)}`,
    );
    expect(isSafe(row!), JSON.stringify(figures(row!))).toBe(true);
    expect(row!.sold).toBeGreaterThan(0);
    expect(row!.asExpected, JSON.stringify(figures(row!))).toBe(true);
  });

  // Last: it kills the master and leaves it down.
  it("the service's Sentinel client follows a failover announced while it is reconnecting (ioredis's failover detector ended it for good)", async () => {
    const cluster = own.current;
    const { master } = await redisRoles(cluster);
    const [asked, ...others] = cluster.servers.sentinels;
    const sentinels = cluster.servers.sentinels.map((s) => ({ host: '127.0.0.1', port: s.port }));
    const client = connectMainRedis(
      { redis: { url: cluster.info.redis, commandTimeoutMs: 2_000, sentinel: { masterName: SENTINEL_MASTER_NAME, sentinels } } },
      'failover-probe',
    );
    const ended: string[] = [];
    client.on('end', () => ended.push(client.status));
    const listener = await redisAt(cluster, others[0]!.port);
    let announcedWhile: string | undefined;
    listener.on('message', () => (announcedWhile ??= client.status));
    await listener.subscribe('+switch-master');
    const askedPid = asked!.pid!;
    try {
      expect(await waitReady(client, 10_000)).toBe(true);
      // A reconnect asks the first Sentinel first: frozen, it holds the reconnect between question and answer.
      await freezeRedis(askedPid);
      await master.kill();
      expect(await pollUntil(() => announcedWhile !== undefined, 15_000, 20)).toBe(true);
      expect(announcedWhile).toBe('connecting'); // the order this case is about
      resume(askedPid);
      const t0 = Date.now();
      const followed = await pollUntil(async () => (await client.ping().catch(() => undefined)) === 'PONG', 15_000, 50);
      console.log(
        `[failover] a client reconnecting when the promotion was announced: ${followed ? `on the new master ${Date.now() - t0} ms after the Sentinel answered` : 'lost'} (bound 15000 ms)`,
      );
      expect(ended).toEqual([]);
      expect(followed).toBe(true);
    } finally {
      resume(askedPid);
      client.disconnect();
      listener.disconnect();
    }
  });
});
