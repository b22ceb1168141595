// The chaos checker must flag a broken history: an oversell, a 200 GET /sales does not record, a
// sale behind a refusal, a phantom sale, a crash, a lock left held; and pass a clean one.
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../faults/client.js';
import { checkHistory } from '../../faults/chaos/checker.js';
import type { ChaosHistory, ChaosStrategy, Request } from '../../faults/chaos/history.js';
import { planFaults } from '../../faults/chaos/plan.js';

const exact: ChaosStrategy = { name: 'sql-update', store: 'mysql', fenced: false, locks: false, mayOversellUnderPause: false, mayLoseInFailover: false };
const lease: ChaosStrategy = { name: 'redlock', store: 'mysql', fenced: false, locks: true, mayOversellUnderPause: true, mayLoseInFailover: false };
const onRedis: ChaosStrategy = { name: 'redis-lua-decr', store: 'redis', fenced: false, locks: false, mayOversellUnderPause: false, mayLoseInFailover: true };

const req = (id: string, strategy: string, outcome: Outcome): Request => ({ id, via: 'nginx', role: 'load', outcome, startedAt: 0, ms: 1, strategy, store: 'mysql', at: 1_000, end: 1_001 });
const ok: Outcome = { kind: 'answer', status: 200 };

/** Three 200s, one unknown that committed, one refusal: 4 sold, 4 deducted. */
function clean(): ChaosHistory {
  return {
    seed: 1,
    strategies: [exact],
    requests: [
      req('c.a1', 'sql-update', ok),
      req('c.a2', 'sql-update', ok),
      req('c.a3', 'sql-update', ok),
      req('c.a4', 'sql-update', { kind: 'answer', status: 502 }),
      req('c.a5', 'sql-update', { kind: 'answer', status: 503, error: 'lock_timeout' }),
    ],
    slices: [{ strategy: 'sql-update', store: 'mysql', startMs: 0, endMs: 5_000, leftBefore: 100, leftAfter: 96, kind: 'load' }],
    faults: [{ kind: 'freeze-instance', target: 'app-0', injectedMs: 500, healedMs: 2_000 }],
    sales: { 'c.a1': 1, 'c.a2': 1, 'c.a3': 1, 'c.a4': 1 },
    lastHealMs: 2_000,
    recoveryMs: { 'sql-update': 300 },
    recoveryBoundMs: 30_000,
    leftovers: [],
    crashes: [],
    idPrefix: 'c.',
  };
}

describe('the chaos checker', () => {
  it('passes a clean history, reconciling an unknown outcome by GET /sales', () => {
    const v = checkHistory(clean());
    expect(v.failures).toEqual([]);
    expect(v.strategies[0]).toMatchObject({ sold: 4, deducted: 4, oversold: 0, unknown: 1, refused: 1, exact: true });
  });

  it('flags an oversold turn', () => {
    const h = clean();
    h.slices[0]!.leftAfter = 97; // 4 sold, 3 deducted: a lost update
    const v = checkHistory(h);
    expect(v.ok).toBe(false);
    expect(v.failures.join()).toContain('oversold 1');
  });

  it('flags a 200 that GET /sales does not record', () => {
    const h = clean();
    delete h.sales['c.a2'];
    h.slices[0]!.leftAfter = 97;
    const v = checkHistory(h);
    expect(v.failures.join()).toContain('200 not counted once by GET /sales: c.a2');
  });

  it('flags a sale whose answer allows none, a double deduction and a phantom id', () => {
    const h = clean();
    h.sales['c.a5'] = 1; // answered 503 lock_timeout, yet committed
    h.sales['c.a1'] = 2;
    h.sales['c.never'] = 1;
    h.slices[0]!.leftAfter = 93;
    const failures = checkHistory(h).failures.join('\n');
    expect(failures).toContain('sold with an answer that allows no sale: c.a5');
    expect(failures).toContain('deducted more than once: c.a1');
    expect(failures).toContain('sales recorded for ids never sent: c.never');
  });

  it('flags an undocumented answer, a lock left held, a crash and a strategy that never recovered', () => {
    const h = clean();
    h.requests.push(req('c.a6', 'sql-update', { kind: 'answer', status: 500, error: 'internal' }));
    h.leftovers = [{ where: 'redis', what: 'lock:string:stock' }];
    h.crashes = [{ target: 'app-1', atMs: 3_000 }];
    h.recoveryMs['sql-update'] = null;
    const failures = checkHistory(h).failures.join('\n');
    expect(failures).toContain('undocumented answers: c.a6 → 500 internal');
    expect(failures).toContain('left held after every heal: redis: lock:string:stock');
    expect(failures).toContain('app-1 exited at 3.0 s with no fault on it');
    expect(failures).toContain('no 200 within 30000 ms');
  });

  it("reports, without failing, an oversell the catalog allows: a lease lock without fencing under a pause", () => {
    const h = clean();
    h.strategies = [lease];
    h.requests = h.requests.map((r) => ({ ...r, strategy: 'redlock' }));
    h.slices = h.slices.map((s) => ({ ...s, strategy: 'redlock', leftAfter: 97 }));
    h.recoveryMs = { redlock: 300 };
    const v = checkHistory(h);
    expect(v.strategies[0]).toMatchObject({ exact: false, asCatalogSays: true, oversold: 1 });
    expect(v.ok).toBe(true);
    // with no pause-like fault over its turn, the same oversell fails
    h.faults = [{ kind: 'kill-mysql', target: 'mysql', injectedMs: 500, healedMs: 2_000 }];
    expect(checkHistory(h).ok).toBe(false);
  });

  it('reports, without failing, writes a Redis failover lost on the strategy living on that Redis, and nothing else', () => {
    const h = clean();
    h.strategies = [onRedis];
    // the failover lost c.a3's deduction together with its sale record
    delete h.sales['c.a3'];
    h.requests = h.requests.map((r) => ({ ...r, strategy: onRedis.name, store: 'redis' }));
    h.slices = h.slices.map((s) => ({ ...s, strategy: onRedis.name, store: 'redis', leftAfter: 97 }));
    h.recoveryMs = { [onRedis.name]: 300 };
    h.faults = [{ kind: 'failover-redis', target: 'redis', injectedMs: 500, healedMs: 2_000 }];
    const v = checkHistory(h);
    expect(v.strategies[0]).toMatchObject({ exact: false, asCatalogSays: true, failoverDuringItsSlices: true });
    expect(v.ok).toBe(true);
    // a frozen master counts as a failover only on the replicated topology
    h.faults = [{ kind: 'freeze-redis', target: 'redis', injectedMs: 500, healedMs: 2_000 }];
    expect(checkHistory(h).ok).toBe(false);
    expect(checkHistory({ ...h, replicated: true }).ok).toBe(true);
    // a sale behind a refusal is never a failover's doing
    h.faults = [{ kind: 'failover-redis', target: 'redis', injectedMs: 500, healedMs: 2_000 }];
    h.sales['c.a5'] = 1;
    h.slices[0]!.leftAfter = 96;
    expect(checkHistory(h).failures.join()).toContain('sold with an answer that allows no sale: c.a5');
    // a strategy that lives elsewhere gets no allowance
    const elsewhere = clean();
    elsewhere.slices[0]!.leftAfter = 97;
    elsewhere.faults = h.faults;
    expect(checkHistory(elsewhere).ok).toBe(false);
  });

  it('draws the same fault schedule from the same seed, and heals every fault before the end', () => {
    const shape = { instances: 3, redlockMasters: 5, seconds: 120, seed: 42 };
    expect(planFaults(shape)).toEqual(planFaults(shape));
    expect(planFaults({ ...shape, seed: 43 })).not.toEqual(planFaults(shape));
    expect(planFaults(shape).every((f) => f.atMs + f.forMs <= 120_000)).toBe(true);
  });

  it('draws failovers and leader kills only on the replicated topology, where the plain Redis stop gives way', () => {
    const shape = { instances: 3, redlockMasters: 5, seconds: 600, seed: 7 };
    const single = new Set(planFaults(shape).map((f) => f.kind));
    const replicated = new Set(planFaults({ ...shape, replicated: true }).map((f) => f.kind));
    expect(single.has('failover-redis') || single.has('kill-zookeeper-leader')).toBe(false);
    expect(single.has('stop-redis')).toBe(true);
    expect(replicated.has('failover-redis') && replicated.has('kill-zookeeper-leader')).toBe(true);
    expect(replicated.has('stop-redis')).toBe(false);
    // a single cluster's seeds keep their schedules: the CI run's seed still freezes and kills ZooKeeper
    const ci = planFaults({ instances: 3, redlockMasters: 5, seconds: 45, seed: 20261132 }).map((f) => f.kind);
    expect(ci).toContain('freeze-zookeeper');
    expect(ci).toContain('kill-zookeeper');
  });
});
