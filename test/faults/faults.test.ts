// The fault lab (faults/), one case or two per scenario on a private cluster with the fault hooks
// on, at small sizes. Safety is asserted exactly; the failures the lab must show (a frozen unfenced
// holder oversells, nginx's default resend deducts twice) are asserted to show; liveness figures
// (recovery times) get a stated bound and are printed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Outcome, Sent } from '../../faults/client.js';
import { catalogMismatches, fetchDeclared } from '../../faults/catalog-check.js';
import { withoutNextUpstreamOff } from '../../faults/default-nginx.js';
import { LAB_INSTANCE_ENV } from '../../faults/lab-cluster.js';
import { isSafe, measure, type FaultRow } from '../../faults/row.js';
import { NGINX_TEMPLATE } from '../../src/cluster/nginx.js';
import type { FaultContext, FaultSizes, Scenario } from '../../faults/scenario.js';
import { stopCase } from '../../faults/scenarios/dependency-stop.js';
import { holderCrash } from '../../faults/scenarios/holder-crash.js';
import { lostReply } from '../../faults/scenarios/lost-reply.js';
import { pauseCase } from '../../faults/scenarios/holder-pause.js';
import { nginxRetry } from '../../faults/scenarios/nginx-retry.js';
import { zkSessionExpiry } from '../../faults/scenarios/zk-session-expiry.js';
import { etcdLease } from '../../faults/scenarios/etcd-lease.js';
import { pgSession } from '../../faults/scenarios/pg-session.js';
import { withOwnCluster } from '../support/cluster.js';
import { removeTree } from '../../src/paths.js';

const own = withOwnCluster({ instances: 3, instanceEnv: { ...LAB_INSTANCE_ENV } });
const SIZES: FaultSizes = { initial: 30, sell: 5, inFlight: 3 };
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-faults-test-'));
afterAll(() => removeTree(workDir));

function ctxFor(...strategies: string[]): FaultContext {
  return { cluster: own.current, sizes: SIZES, wants: (s) => strategies.includes(s), log: () => undefined, workDir };
}

async function run(scenario: Scenario, ...strategies: string[]): Promise<FaultRow[]> {
  const rows = await scenario.run(ctxFor(...strategies));
  expect(rows.length).toBeGreaterThan(0);
  return rows;
}

/** The row's figures a failed assertion should show. */
const figures = (r: FaultRow) => ({
  variant: r.variant,
  store: r.store,
  sold: r.sold,
  deducted: r.deducted,
  oversold: r.oversold,
  double: r.doubleDeductions,
  answers: r.byRole,
  details: r.details,
});

function liveness(r: FaultRow, label: string): void {
  console.log(`[liveness] ${label}: recovered in ${r.recoverMs ?? 'never'} ms (bound ${r.recoverBoundMs} ms)`);
  expect(r.recoverMs, label).not.toBeNull();
  expect(r.recoverMs!, label).toBeLessThanOrEqual(r.recoverBoundMs!);
}

const sent = (id: string, outcome: Outcome): Sent => ({ id, via: 'app-0', role: 'r', outcome, startedAt: 0, ms: 0 });

describe("the fault lab's arithmetic", () => {
  it('reconciles unknown outcomes by request id, counts double deductions and refusals that committed anyway', () => {
    const m = measure(
      { scenario: 's', strategy: 'x', variant: 'v', store: 'mysql' },
      [
        sent('a', { kind: 'answer', status: 200 }),
        sent('b', { kind: 'answer', status: 502 }),
        sent('c', { kind: 'no-answer', reason: 'reset' }),
        sent('d', { kind: 'answer', status: 503, error: 'lock_lost' }),
        sent('e', { kind: 'answer', status: 500, error: 'internal' }),
        sent('f', { kind: 'answer', status: 503, error: 'outcome_unknown' }),
      ],
      10,
      5,
      { a: 1, b: 2, d: 1, f: 1 },
    );
    expect({
      sold: m.sold,
      deducted: m.deducted,
      oversold: m.oversold,
      unknown: m.outcomeUnknown,
      double: m.doubleDeductions,
      lied: m.refusedButCommitted,
      undocumented: m.undocumented,
    }).toEqual({ sold: 3, deducted: 5, oversold: -2, unknown: 3, double: 1, lied: 1, undocumented: 1 });
    expect(isSafe(m)).toBe(false);
  });

  it('names a catalog declaration the measurements contradict, and only that one', () => {
    const base = measure(
      { scenario: 'holder-pause', strategy: 'x', variant: 'unfenced', store: 'mysql' },
      [sent('h', { kind: 'answer', status: 200 })],
      10,
      10,
      {},
    );
    const row = (variant: string, oversold: number): FaultRow => ({
      ...base,
      variant,
      oversold,
      byRole: { holder: { 200: 1 } },
      recoverMs: null,
      expected: '',
      asExpected: true,
      details: [],
      facts: {},
      ms: 0,
    });
    const declared = new Map([['x', { name: 'x', expected: { faults: { holderCrash: 'after ttlMs', holderPause: 'exact', holderPauseFenced: 'exact' } } }]]);
    const found = catalogMismatches([row('unfenced', 20), row('fenced', 0)], declared);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain("declares holderPause 'exact', the lab measured 'oversells'");
  });

  it('judges lostReply only when the lost acquire was applied, and names a lock still held as a mismatch', () => {
    const base = measure({ scenario: 'lost-reply', strategy: 'x', variant: 'acquire reply lost', store: 'mysql' }, [], 10, 10, {});
    const row = (acquireApplied: boolean, recoverMs: number | null): FaultRow => ({
      ...base,
      byRole: { next: recoverMs === null ? { '503 lock_timeout': 1 } : { 200: 1 } },
      recoverMs,
      expected: '',
      asExpected: true,
      details: [],
      facts: { acquireApplied },
      ms: 0,
    });
    const declared = new Map([['x', { name: 'x', expected: { faults: { holderCrash: 'never', holderPause: 'exact', lostReply: 'released by its owner' } } }]]);
    expect(catalogMismatches([row(true, 12), row(false, null)], declared)).toEqual([]);
    const found = catalogMismatches([row(true, null)], declared);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain("declares lostReply 'released by its owner', the lab measured 'not released within waitMs'");
  });

  it("the default-nginx config is the project's minus exactly its proxy_next_upstream off lines (/check/lock and /test/)", () => {
    const template = fs.readFileSync(NGINX_TEMPLATE, 'utf8');
    const changed = withoutNextUpstreamOff(template);
    const lines = (t: string) => t.split('\n').filter((l) => l.trim() !== '');
    const kept = lines(changed);
    // A multiset difference: each line of the template not matched by one of the changed config's.
    const removed = lines(template).filter((l) => {
      const at = kept.indexOf(l);
      if (at < 0) return true;
      kept.splice(at, 1);
      return false;
    });
    expect(removed.map((l) => l.trim())).toEqual(['proxy_next_upstream off;', 'proxy_next_upstream off;']);
    expect(kept).toEqual([]);
  });
});

describe('the fault lab', () => {
  it('holder-crash: a killed redis-owned holder blocks the next one for about its lease, and nothing is oversold', async () => {
    const [row] = await run(holderCrash, 'redis-owned');
    expect(isSafe(row!), JSON.stringify(figures(row!))).toBe(true);
    expect(row!.byRole.holder).toEqual({ 'no answer': 1 });
    liveness(row!, 'holder-crash redis-owned (ttl 1000 ms)');
  });

  it('holder-pause: a holder frozen past its lease oversells N units unfenced, and none fenced (its write answers 503 fenced)', async () => {
    const ctx = ctxFor('redis-owned');
    const unfenced = await pauseCase(ctx, 'redis-owned', 'unfenced', 'mysql');
    expect(unfenced.oversold, JSON.stringify(figures(unfenced))).toBe(SIZES.sell);
    expect(unfenced.byRole.holder).toEqual({ 200: 1 });

    const fenced = await pauseCase(ctx, 'redis-owned', 'fenced', 'mysql');
    expect(isSafe(fenced), JSON.stringify(figures(fenced))).toBe(true);
    expect(fenced.byRole.holder).toEqual({ '503 fenced': 1 });
    expect(fenced.deducted).toBe(SIZES.sell);
    expect([unfenced.asExpected, fenced.asExpected]).toEqual([true, true]);
  });

  it('holder-pause: RedLock has no fencing token and refuses fenced=1 with a 400, doing nothing', async () => {
    const row = await pauseCase(ctxFor('redlock'), 'redlock', 'fenced', 'mysql');
    expect(row.byRole.holder).toEqual({ '400 fenced': 1 });
    expect(row.deducted).toBe(0);
  });

  it('zk-session-expiry: a zk-watch holder whose session expired answers 503 lock_lost, writes nothing, and its instance recovers', async () => {
    const [row] = await run(zkSessionExpiry, 'zk-watch');
    expect(isSafe(row!), JSON.stringify(figures(row!))).toBe(true);
    expect(row!.byRole.holder).toEqual({ '503 lock_lost': 1 });
    liveness(row!, 'zk-session-expiry zk-watch (2 s session)');
  });

  it("nginx-retry: the project nginx answers 502 and deducts once; nginx's default resend deducts twice", async () => {
    const [project, fallback] = await run(nginxRetry, 'redis-owned');
    expect(project!.facts.conclusive, JSON.stringify(figures(project!))).toBe(true);
    expect(isSafe(project!), JSON.stringify(figures(project!))).toBe(true);
    expect(project!.byRole.client).toEqual({ 502: 1 });
    expect({ sold: project!.sold, deducted: project!.deducted, double: project!.doubleDeductions }).toEqual({ sold: 1, deducted: 1, double: 0 });
    console.log(
      `[nginx-retry] default nginx: ${fallback!.facts.attempts} attempt(s), conclusive ${fallback!.facts.conclusive}, resent to ${fallback!.facts.resentTo}`,
    );
    if (fallback!.facts.conclusive) expect(fallback!.doubleDeductions, JSON.stringify(figures(fallback!))).toBeGreaterThanOrEqual(1);
  });

  it('lost-reply: an acquire applied after its reply was lost is released by its owner (redis-setnx, redis-watchdog): the next instance sells within 2 s, no key left, nothing sold twice', async () => {
    const rows = await run(lostReply, 'redis-setnx', 'redis-watchdog');
    expect(rows.map((r) => r.strategy)).toEqual(['redis-setnx', 'redis-watchdog']);
    for (const r of rows) {
      const shown = JSON.stringify({ ...figures(r), facts: r.facts });
      expect(isSafe(r), shown).toBe(true);
      // the fault really happened: the server applied the acquire its requester had given up on
      expect(r.facts.acquireApplied, shown).toBe(true);
      expect(r.byRole, shown).toEqual({ warm: { 200: 1 }, lost: { '503 redis_unavailable': 1 }, next: { 200: 1 } });
      expect({ sold: r.sold, deducted: r.deducted, lostCommitted: r.facts.lostCommitted, keysLeft: r.facts.keysLeft }, shown).toEqual({
        sold: 2,
        deducted: 2,
        lostCommitted: false,
        keysLeft: 0,
      });
      liveness(r, `lost-reply ${r.strategy} (ttl 30 s; SIGCONT to the next sale)`);
      expect(r.asExpected, shown).toBe(true);
    }
    // GET /strategies declares lostReply 'released by its owner' for both: the measurement agrees
    expect(catalogMismatches(rows, await fetchDeclared(own.current.info.instances[0]!))).toEqual([]);
  });

  it('dependency-stop: MySQL stopped under redis-owned: documented answers only, sold = deducted, and every instance recovers', async () => {
    const row = await stopCase(ctxFor('redis-owned'), 'mysql', 'mysql', 'redis-owned');
    expect(isSafe(row), JSON.stringify(figures(row))).toBe(true);
    expect(row.answers['no answer'] ?? 0).toBe(0);
    liveness(row, 'dependency-stop redis-owned, mysql stopped');
  });

  it("etcd-lease: Jepsen's etcd finding, sequenced: a waiter whose lease is revoked is refused by etcd-lock, told it holds the lock by etcd-lock-no-recheck (oversold 1), refused fenced", async () => {
    const rows = await run(etcdLease, 'etcd-lock-no-recheck');
    const [unfenced, fenced] = rows;
    expect(
      { variant: unfenced!.variant, waiterToldItHolds: unfenced!.facts.waiterToldItHolds, oversold: unfenced!.oversold },
      JSON.stringify(figures(unfenced!)),
    ).toEqual({ variant: "waiter's lease revoked, unfenced", waiterToldItHolds: true, oversold: 1 });
    expect({ waiter: fenced!.byRole.waiter, safe: isSafe(fenced!) }, JSON.stringify(figures(fenced!))).toEqual({ waiter: { '503 fenced': 1 }, safe: true });
    // etcd-lock: its check after the wait refuses the waiter; the holder's revoked lease oversells unfenced, never fenced
    const recipe = await run(etcdLease, 'etcd-lock');
    expect(recipe.map((r) => [r.variant, r.oversold, r.asExpected])).toEqual([
      ["holder's lease revoked, unfenced", SIZES.sell, true],
      ["holder's lease revoked, fenced", 0, true],
      ["waiter's lease revoked, unfenced", 0, true],
    ]);
    expect(rows.every((r) => r.asExpected)).toBe(true);
  });

  it("pg-session: a terminated backend frees pg-advisory-xact's lock at once and the holder refuses; the pooled session lock is granted to a second request of the same instance (oversold 1)", async () => {
    const rows = await run(pgSession, 'pg-advisory-xact', 'pg-advisory-session');
    const byVariant = Object.fromEntries(rows.map((r) => [r.variant, r]));
    const killed = byVariant['backend terminated after-acquire']!;
    expect({ holder: killed.byRole.holder, safe: isSafe(killed), freed: killed.facts.lockFreedWithSession }, JSON.stringify(figures(killed))).toEqual({
      holder: { '503 lock_lost': 1 },
      safe: true,
      freed: true,
    });
    expect(byVariant['backend terminated before-write, unfenced']!.oversold).toBe(SIZES.sell);
    expect(isSafe(byVariant['backend terminated before-write, fenced']!)).toBe(true);
    const pooled = byVariant['two requests on one instance, one pool']!;
    expect({ oversold: pooled.oversold, second: pooled.byRole.second, other: pooled.byRole.other }, JSON.stringify(figures(pooled))).toEqual({
      oversold: 1,
      second: { 200: 1 },
      other: { '503 lock_timeout': 1 },
    });
    expect(rows.map((r) => r.asExpected)).toEqual([true, true, true, true]);
  });
});
