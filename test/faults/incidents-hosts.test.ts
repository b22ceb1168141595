// The incident gallery's case that cuts a link (the hosts topology: a network namespace per server,
// root only), on a private cluster of its own: Redisson #3636, a holder cut from Redis that keeps
// working, beside the lab's watchdog that refuses and the fence (faults/incidents/designs.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { INCIDENTS } from '../../faults/incidents/index.js';
import { asClaimed, runIncident } from '../../faults/incidents/run.js';
import { LAB_INSTANCE_ENV } from '../../faults/lab-cluster.js';
import { hasNetAdmin } from '../../src/net/hosts.js';
import { removeTree } from '../../src/paths.js';
import { withOwnCluster } from '../support/cluster.js';

describe.skipIf(!hasNetAdmin())('the incident gallery, hosts topology (needs root)', () => {
  const own = withOwnCluster({ instances: 3, topology: 'hosts', instanceEnv: { ...LAB_INSTANCE_ENV } });
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-incidents-hosts-'));
  afterAll(() => removeTree(workDir));

  it('Redisson #3636: a holder cut from Redis keeps working and oversells N; the watchdog refuses its own write, the fence refuses it', async () => {
    const incident = INCIDENTS.find((i) => i.id === 'redisson-3636');
    expect(incident?.topology).toBe('hosts');
    const row = await runIncident(
      { cluster: own.current, sizes: { initial: 30, sell: 5, inFlight: 3 }, wants: () => true, log: () => undefined, workDir },
      incident!,
    );
    console.log(`[incident] redisson-3636: ${JSON.stringify({ affected: row.affected, lab: row.lab })}`);
    const outcomes = [row.affected, ...row.lab].map((t) =>
      'error' in t ? `error: ${t.error}` : [t.pkg, t.reproduced, t.facts.oversold, t.facts.holder, t.facts.asExpected],
    );
    expect(outcomes).toEqual([
      ['stocklab redis-owned', true, 5, '200', true],
      ['stocklab redis-watchdog', false, 0, '503 lock_lost', true],
      ['stocklab redis-owned, fenced=1', false, 0, '503 fenced', true],
    ]);
    expect(asClaimed(row)).toBe(true);
  });
});
