// The incident gallery's case that needs Sentinel (the replicated topology), on a private cluster of
// its own: node-redlock's README warning, a lock on one Redis master lost in its failover, beside
// the lab's RedLock over five independent masters under the same kill (faults/incidents/designs.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { INCIDENTS } from '../../faults/incidents/index.js';
import { asClaimed, runIncident } from '../../faults/incidents/run.js';
import { LAB_INSTANCE_ENV } from '../../faults/lab-cluster.js';
import { removeTree } from '../../src/paths.js';
import { withOwnCluster } from '../support/cluster.js';

const own = withOwnCluster({ instances: 3, topology: 'replicated', instanceEnv: { ...LAB_INSTANCE_ENV } });
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-incidents-replicated-'));
afterAll(() => removeTree(workDir));

describe('the incident gallery, replicated topology', () => {
  it("node-redlock's README on one Redis behind Sentinel: a failover before replication grants the lock twice (oversold 1); RedLock over five masters does not", async () => {
    const incident = INCIDENTS.find((i) => i.id === 'redlock-sentinel');
    expect(incident?.topology).toBe('replicated');
    const row = await runIncident(
      { cluster: own.current, sizes: { initial: 30, sell: 5, inFlight: 3 }, wants: () => true, log: () => undefined, workDir },
      incident!,
    );
    console.log(`[incident] redlock-sentinel: ${JSON.stringify({ affected: row.affected, lab: row.lab })}`);
    const outcomes = [row.affected, ...row.lab].map((t) => ('error' in t ? `error: ${t.error}` : [t.pkg, t.reproduced, t.facts.oversold, t.facts.asExpected]));
    expect(outcomes).toEqual([
      ['stocklab redis-owned, one master + Sentinel', true, 1, true],
      ['stocklab redlock, five masters', false, 0, true],
    ]);
    expect(asClaimed(row)).toBe(true);
  });
});
