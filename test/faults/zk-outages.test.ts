// ZooKeeper failures on a private cluster (2 instances, 2 s sessions): a crashed holder's node
// vanishes with its session; a holder that loses ZooKeeper fails cleanly instead of writing.
import { describe, expect, it } from 'vitest';
import { resetStock } from '../../src/load/race.js';
import { unitsLeft } from '../../src/cluster/stores.js';
import { pollUntil, sleep } from '../../src/time.js';
import { withOwnCluster } from '../support/cluster.js';
import { getJson } from '../support/lock-helpers.js';

const SESSION_MS = 2_000;
const own = withOwnCluster({ instances: 2, instanceEnv: { ZK_SESSION_TIMEOUT_MS: String(SESSION_MS) } });

describe('ZooKeeper failures', () => {
  it('an instance killed while holding zk-watch blocks the others only until its session expires', async () => {
    const { info, servers } = own.current;
    const [victim, survivor] = info.instances as [string, string];
    await resetStock(survivor, 100);

    void fetch(`${victim}/check/lock?strategy=zk-watch&workMs=10000`).catch(() => undefined);
    await sleep(500);
    const killedAt = Date.now();
    await servers.instances[0]!.kill();

    const r = await getJson(`${survivor}/check/lock?strategy=zk-watch&waitMs=8000`);
    const waited = Date.now() - killedAt;
    expect(r.status).toBe(200);
    // ZooKeeper deletes the dead session's node after the session timeout, waking the next in line.
    expect(waited).toBeGreaterThan(SESSION_MS / 2);
    expect(waited).toBeLessThan(SESSION_MS + 2_500);
    expect(await unitsLeft(info, 'mysql')).toBe(99);
  });

  it('a holder that loses ZooKeeper mid-work answers 503 lock_lost without writing; zk strategies then fail fast and recover', async () => {
    const { info, servers } = own.current;
    const base = info.instances[1]!;
    await resetStock(base, 100);

    const holding = getJson(`${base}/check/lock?strategy=zk-watch&workMs=2500`);
    await sleep(500);
    await servers.zookeeper.stop();
    try {
      const r = await holding;
      expect(r.status).toBe(503);
      expect(r.body).toMatchObject({ ok: false, error: 'lock_lost' });
      expect(await unitsLeft(info, 'mysql')).toBe(100);

      for (const strategy of ['zk-ephemeral', 'zk-sequential', 'zk-watch', 'zk-reentrant']) {
        const down = await getJson(`${base}/check/lock?strategy=${encodeURIComponent(strategy)}`);
        expect(down.status, strategy).toBe(503);
        expect(down.body, strategy).toMatchObject({ error: 'zookeeper_unavailable' });
        expect(down.ms, strategy).toBeLessThan(1_000);
      }
    } finally {
      await servers.zookeeper.start();
    }

    const zkHealthy = async () => ((await getJson(`${base}/health`)).body.checks as Record<string, boolean>).zookeeper === true;
    if (!(await pollUntil(zkHealthy, 20_000, 200))) throw new Error('instance did not reconnect to ZooKeeper');
    const again = await getJson(`${base}/check/lock?strategy=zk-watch&waitMs=5000`);
    expect(again.body).toMatchObject({ ok: true });
    expect(await unitsLeft(info, 'mysql')).toBe(99);
  });
});
