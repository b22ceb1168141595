// The incident gallery (npm run faults -- --scenario incidents) on a private cluster with the fault
// hooks on: each library's reported symptom shows on the version the report names and not on the
// release that fixed it, and the lab's own lock of the same family under the same fault does what
// the gallery says. Every case sequences its own steps (faults/incidents/).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { INCIDENTS } from '../../faults/incidents/index.js';
import type { IncidentRow } from '../../faults/incidents/incident.js';
import { asClaimed, runIncident } from '../../faults/incidents/run.js';
import { LAB_INSTANCE_ENV } from '../../faults/lab-cluster.js';
import type { FaultContext } from '../../faults/scenario.js';
import { removeTree } from '../../src/paths.js';
import { withOwnCluster } from '../support/cluster.js';

const own = withOwnCluster({ instances: 3, instanceEnv: { ...LAB_INSTANCE_ENV } });
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-incidents-'));
afterAll(() => removeTree(workDir));

// One context for the file: a fault-lab case that several incidents name (the watchdog frozen past
// its lease) runs once, as in a gallery run.
let context: FaultContext | undefined;
const ctx = (): FaultContext =>
  (context ??= { cluster: own.current, sizes: { initial: 30, sell: 5, inFlight: 3 }, wants: () => true, log: () => undefined, workDir });

/** Per trial: its package, and reproduced or the error it ran into. */
const outcome = (t: IncidentRow['affected'] | undefined) =>
  t && { pkg: t.pkg, version: t.version, reproduced: 'error' in t ? `error: ${t.error}` : t.reproduced };

const incident = (id: string) => {
  const found = INCIDENTS.find((i) => i.id === id);
  if (!found) throw new Error(`no incident ${id}`);
  return found;
};

async function run(id: string): Promise<IncidentRow> {
  const row = await runIncident(ctx(), incident(id));
  console.log(`[incident] ${id}: ${JSON.stringify({ affected: row.affected, fixed: row.fixed, lab: row.lab })}`);
  return row;
}

describe('the incident gallery', () => {
  it("redis-semaphore #175: 5.3.0 re-acquires silently on a late refresh, 5.8.0 reports the loss; the lab's watchdog oversells N unfenced, 0 fenced", async () => {
    const row = await run('redis-semaphore-175');
    expect([outcome(row.affected), outcome(row.fixed), ...row.lab.map(outcome)]).toEqual([
      { pkg: 'redis-semaphore-5.3.0', version: 'redis-semaphore@5.3.0', reproduced: true },
      { pkg: 'redis-semaphore', version: expect.stringMatching(/^redis-semaphore@5\.([4-9]|\d\d)\./), reproduced: false },
      { pkg: 'stocklab redis-watchdog', version: expect.any(String), reproduced: true },
      { pkg: 'stocklab redis-watchdog, fenced=1', version: expect.any(String), reproduced: false },
    ]);
    expect(row.affected).toMatchObject({ facts: { lossReported: 0, keyHoldsA: true } });
    expect(row.fixed).toMatchObject({ facts: { lossReported: 1, keyHoldsA: false } });
    expect(row.lab.map((t) => ('facts' in t ? [t.facts.oversold, t.facts.holder] : t))).toEqual([
      [5, '200'],
      [0, '503 fenced'],
    ]);
    expect(asClaimed(row)).toBe(true);
  });

  it('redis-semaphore #9 / #24: two holders at once after a stall, the first told only by its late refresh', async () => {
    const row = await run('redis-semaphore-9-24');
    expect(outcome(row.affected)).toMatchObject({ pkg: 'redis-semaphore', reproduced: true });
    const facts = 'facts' in row.affected ? row.affected.facts : {};
    expect(facts.bothHold).toBe(true);
    // told at A's refresh, 1500 ms after its acquire: after B took the lock, never before
    expect(facts.toldAfterMs).toBeGreaterThan(0);
    expect(asClaimed(row)).toBe(true);
  });

  it("redis-semaphore #205: 5.5.0 reports a lock lost when a refresh answers after release(), 5.8.0 does not, nor does the lab's watchdog", async () => {
    const row = await run('redis-semaphore-205');
    expect([outcome(row.affected), outcome(row.fixed), ...row.lab.map(outcome)]).toEqual([
      { pkg: 'redis-semaphore-5.5.0', version: 'redis-semaphore@5.5.0', reproduced: true },
      { pkg: 'redis-semaphore', version: expect.stringMatching(/^redis-semaphore@5\.([6-9]|\d\d)\./), reproduced: false },
      { pkg: 'stocklab redis-watchdog', version: expect.any(String), reproduced: false },
    ]);
    expect(row.affected).toMatchObject({ facts: { lossReported: 1, keyGone: true } });
  });

  it("node-redlock #296: 5.0.0-beta.2 returns an already expired lock after retries, the fork with the fix and the lab's redlock a live one", async () => {
    const row = await run('redlock-296');
    expect([outcome(row.affected), outcome(row.fixed), ...row.lab.map(outcome)]).toEqual([
      { pkg: 'redlock', version: 'redlock@5.0.0-beta.2', reproduced: true },
      { pkg: '@sesamecare-oss/redlock', version: '@sesamecare-oss/redlock@1.4.0', reproduced: false },
      { pkg: 'stocklab redlock', version: expect.any(String), reproduced: false },
    ]);
    expect(row.affected).toMatchObject({ facts: { extend: 'Cannot extend an already-expired lock.' } });
    expect(row.fixed).toMatchObject({ facts: { extend: 'extended' } });
  });

  it("etcd3 #75: the package's lock and etcd's Lock RPC both hold one name; the lab's etcd-lock makes the Lock RPC wait", async () => {
    const row = await run('etcd3-75');
    expect([outcome(row.affected), ...row.lab.map(outcome)]).toEqual([
      { pkg: 'etcd3', version: expect.stringMatching(/^etcd3@/), reproduced: true },
      { pkg: 'stocklab etcd-lock', version: expect.any(String), reproduced: false },
    ]);
  });

  it('Redisson #2665 / #5698, the watchdog design: its holder frozen past the lease oversells; fenced=1 refuses the stale write', async () => {
    const row = await run('redisson-2665-5698');
    expect([outcome(row.affected), ...row.lab.map(outcome)]).toEqual([
      { pkg: 'stocklab redis-watchdog', version: expect.any(String), reproduced: true },
      { pkg: 'stocklab redis-watchdog, fenced=1', version: expect.any(String), reproduced: false },
    ]);
    expect([row.affected, ...row.lab].map((t) => ('facts' in t ? t.facts.oversold : t))).toEqual([5, 0]);
    expect(asClaimed(row)).toBe(true);
  });

  it('etcd #11456, the lock recipe: a waiter whose lease was revoked is told it holds the lock (oversold 1); the check after the wait refuses it, and so does the fence', async () => {
    const row = await run('etcd-11456');
    expect([outcome(row.affected), ...row.lab.map(outcome)]).toEqual([
      { pkg: 'stocklab etcd-lock-no-recheck', version: expect.any(String), reproduced: true },
      { pkg: 'stocklab etcd-lock', version: expect.any(String), reproduced: false },
      { pkg: 'stocklab etcd-lock-no-recheck, fenced=1', version: expect.any(String), reproduced: false },
    ]);
    expect([row.affected, ...row.lab].map((t) => ('facts' in t ? [t.facts.oversold, t.facts.asExpected] : t))).toEqual([
      [1, true],
      [0, true],
      [0, true],
    ]);
  });

  it("pals #14, the re-entrant session lock: through a pool a second request of the holder's instance is let in (oversold 1); the transaction-scoped lock keeps it out", async () => {
    const row = await run('pals-14');
    expect([outcome(row.affected), ...row.lab.map(outcome)]).toEqual([
      { pkg: 'stocklab pg-advisory-session', version: expect.any(String), reproduced: true },
      { pkg: 'stocklab pg-advisory-xact', version: expect.any(String), reproduced: false },
    ]);
    expect([row.affected, ...row.lab].map((t) => ('facts' in t ? [t.facts.oversold, t.facts.asExpected] : t))).toEqual([
      [1, true],
      [0, true],
    ]);
  });

  it("PgBouncer #102 / #418: advisory-lock behind transaction pooling lets B in while A holds, and A's unlock on another server leaves the lock held; the lab's session lock the same, its transaction lock refuses B", async () => {
    const row = await run('pgbouncer-102-418');
    expect([outcome(row.affected), ...row.lab.map(outcome)]).toEqual([
      { pkg: 'advisory-lock', version: 'advisory-lock@2.0.0', reproduced: true },
      { pkg: 'stocklab pg-advisory-session', version: expect.any(String), reproduced: true },
      { pkg: 'stocklab pg-advisory-xact', version: expect.any(String), reproduced: false },
    ]);
    // one pooled server session held the lock for both clients; A's unlock ran on the other server and the lock outlived it
    expect(row.affected).toMatchObject({ facts: { twoHolders: true, holdingSessions: 1, leftBehind: true } });
    // the transaction lock refused B while A held, and granted it once A released
    expect(row.lab[1]).toMatchObject({ facts: { twoHolders: false, grantedAfterRelease: true } });
    expect(asClaimed(row)).toBe(true);
  });

  it("Curator #727, the InterProcessMutex design: A's session expires while it holds and B is granted the lock (two holders, A told by lease.lost); through the service the holder heeds it and refuses", async () => {
    const row = await run('curator-727');
    expect([outcome(row.affected), ...row.lab.map(outcome)]).toEqual([
      { pkg: 'stocklab zk-watch lock, its loss not heeded', version: expect.any(String), reproduced: true },
      { pkg: 'stocklab zk-watch, through the service', version: expect.any(String), reproduced: false },
    ]);
    expect(row.affected).toMatchObject({ facts: { twoHolders: true, lostToldA: true } });
    expect(row.lab[0]).toMatchObject({ facts: { oversold: 0, asExpected: true, holder: '503 lock_lost' } });
  });

  it("Redisson #7272, its ordering rebuilt: a watchdog armed from the acquire's reply after unlock() keeps an orphan alive; the lab's redis-watchdog leaves no key", async () => {
    const row = await run('redisson-7272');
    expect([outcome(row.affected), ...row.lab.map(outcome)]).toEqual([
      { pkg: expect.stringMatching(/^stocklab watchdog armed from the acquire's reply/), version: expect.any(String), reproduced: true },
      { pkg: 'stocklab redis-watchdog', version: expect.any(String), reproduced: false },
    ]);
    const facts = (t: IncidentRow['affected'] | undefined) => (t && 'facts' in t ? t.facts : undefined);
    expect(facts(row.affected)).toMatchObject({ releasedAHold: false, keyExists: true, nextTakerGotIt: false });
    expect(Number(facts(row.affected)?.renewalsAfterUnlock)).toBeGreaterThanOrEqual(3);
    expect(facts(row.lab[0])).toMatchObject({ keyExists: false, nextTakerGotIt: true });
    expect(Number(facts(row.lab[0])?.nextTakerMs)).toBeLessThan(300);
    expect(asClaimed(row)).toBe(true);
  });
});
