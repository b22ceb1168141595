// One chaos run on a lab cluster: the strategies take turns under a steady workload while the
// nemesis injects its planned faults; then every server is healed, each strategy must sell again
// within a bound, nothing may be left held, and the checker judges the whole history.
import path from 'node:path';
import type { RunningCluster } from '../../src/cluster/cluster.js';
import { runningNetwork } from '../../src/cluster/partitions.js';
import type { HostsLayout } from '../../src/net/hosts.js';
import type { StoreKind } from '../../src/stock/store.js';
import { pollUntil, sleep } from '../../src/time.js';
import { settledUnitsLeft } from '../../src/cluster/stores.js';
import { ensureReady, liveBase } from '../cluster-ops.js';
import { isSold } from '../client.js';
import { ZK_SESSION_MS } from '../locks.js';
import { setRedlockMasters } from '../redlock-masters.js';
import { currentStoreAddresses, redisAt, sentinelMasterViews } from '../replication.js';
import { REDIS_STOCK_KEY } from '../../src/stock/product.js';
import { readSales, resetStock } from '../service.js';
import { checkHistory, type ChaosVerdict } from './checker.js';
import type { ChaosHistory, ChaosStrategy, Request, Slice } from './history.js';
import { holdsUpWritesTo } from './cuts.js';
import { internalErrorsIn } from './internal-errors.js';
import { leftoversAfter } from './leftovers.js';
import { settledMasterCount, type MasterReads } from './store-count.js';
import { planFaults, type PlannedFault } from './plan.js';
import { startNemesis, watchCrashes } from './nemesis.js';
import { stepOf, type Progress } from '../../src/cli/progress.js';
import { nextTurnMs, overheadSoFar, plannedTurns } from './turns.js';
import { CHAOS_TTL_MS, runLoad, sendRecorded, type LoadSpec, type Recorder } from './workload.js';

export interface ChaosOptions {
  seconds: number;
  seed: number;
  strategies: ChaosStrategy[];
  /** A fixed modest rate, well under every exact strategy's goodput on one machine (the bench's figures), with a cap on requests in flight. */
  load: LoadSpec;
}

export const DEFAULT_LOAD: LoadSpec = { rate: 20, maxInFlight: 16 };

/** Stock at the start: more than the run can sell, so no turn ends in sold_out. */
const INITIAL = 1_000_000;
/** Ms from the last heal (or the previous strategy's recovery) to a strategy's first 200. */
export const RECOVERY_BOUND_MS = 30_000;
/** How long leases and sessions may take to end once everything runs: a lease, a session, and slack. */
const LEFTOVER_BOUND_MS = CHAOS_TTL_MS + ZK_SESSION_MS + 5_000;
/** A RedLock master restarts after the lease it may have granted has ended (the delayed restart RedLock needs). */
const REDLOCK_RESTART_DELAY_MS = CHAOS_TTL_MS + 1_000;
const PROBE_INTERVAL_MS = 100;
/** A turn waits this long at most for its network to be quiet (a cut of 8 s, healed, then as long again and the slack). */
const QUIET_BOUND_MS = 30_000;

/**
 * The nodes a partition is drawn over on the hosts topology: the instances as app-0… (the same
 * names from run to run, so a seed repeats its cuts), then every server the strategies use; not
 * nginx, the load's way in.
 */
export function partitionNodes(layout: HostsLayout | undefined): string[] | undefined {
  if (!layout) return undefined;
  const names = layout.hosts.map((h) => h.name).filter((n) => n !== 'nginx');
  const apps = names.filter((n) => n.startsWith('app-'));
  return [...apps.map((_n, i) => `app-${i}`), ...names.filter((n) => !n.startsWith('app-'))];
}

export interface ChaosResult {
  history: ChaosHistory;
  verdict: ChaosVerdict;
  plan: PlannedFault[];
  /** sends skipped at the in-flight cap (the cluster was slower than the rate) */
  skipped: number;
  /** per store: units the store lost over the run vs the deductions GET /sales recorded */
  ledger: Record<string, { deducted: number; recorded: number }>;
  /** answers 500 the instances logged over the run (any route): each one fails the verdict */
  internalErrors: number;
}

/**
 * The store's count once nothing moves; a store that is down is read again until it is back. The
 * replicated Redis's is read only on a master no failover is replacing (store-count.ts): a deposed
 * master's count holds writes its resync drops.
 */
export async function readLeft(cluster: RunningCluster, store: StoreKind): Promise<number> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      if (store === 'redis' && cluster.servers.redisReplica) return await settledMasterCount(masterReads(cluster), 300, 20_000);
      return await settledUnitsLeft(await currentStoreAddresses(cluster), store, 300, 20_000);
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(500);
    }
  }
}

/** The replicated Redis as store-count.ts reads it: every Sentinel's view, and the stock key on one server (a frozen one times out). */
function masterReads(cluster: RunningCluster): MasterReads {
  return {
    sentinels: () => sentinelMasterViews(cluster),
    count: async (port) => {
      const client = await redisAt(cluster, port);
      try {
        return Number((await client.get(REDIS_STOCK_KEY)) ?? 0);
      } finally {
        client.disconnect();
      }
    },
  };
}

export function makeRecorder(idPrefix: string): Recorder & { requests: Request[]; inFlight(strategy: string): number } {
  const counters = new Map<string, number>();
  const out = new Map<string, number>();
  const requests: Request[] = [];
  return {
    t0: Date.now(),
    requests,
    nextId(strategy, role) {
      const n = (counters.get(strategy) ?? 0) + 1;
      counters.set(strategy, n);
      out.set(strategy, (out.get(strategy) ?? 0) + 1);
      // X-Request-Id takes A-Z, a-z, 0-9, ".", "_" and "-" (src/http/params.ts): redlock+line goes as redlock_line.
      return `${idPrefix}.${strategy.replace(/[^A-Za-z0-9_-]/g, '_')}.${role}${n}`.slice(0, 64);
    },
    record(r) {
      requests.push(r);
      out.set(r.strategy, (out.get(r.strategy) ?? 1) - 1);
    },
    inFlight: (strategy) => out.get(strategy) ?? 0,
  };
}

export async function runChaos(cluster: RunningCluster, opts: ChaosOptions, log: (line: string) => void, progress?: Progress): Promise<ChaosResult> {
  if (opts.strategies.length === 0) throw new Error('chaos: no strategy to run');
  const idPrefix = `chaos${opts.seed}`;
  await ensureReady(cluster);
  await setRedlockMasters(cluster, { persistence: 'none', restartDelayMs: REDLOCK_RESTART_DELAY_MS });
  await resetStock(liveBase(cluster), INITIAL);
  // Every store a strategy of the plan deducts from (PostgreSQL's only when one does), and both stores of the ledger's default.
  const ledgerStores = [...new Set<StoreKind>(['mysql', 'redis', ...opts.strategies.map((s) => s.store)])];
  const startLeft: Partial<Record<StoreKind, number>> = {};
  for (const store of ledgerStores) startLeft[store] = await readLeft(cluster, store);
  const nodes = partitionNodes(cluster.layout);
  const plan = planFaults({
    instances: cluster.servers.instances.length,
    redlockMasters: cluster.servers.redlock.length,
    seconds: opts.seconds,
    seed: opts.seed,
    replicated: cluster.servers.redisReplica !== undefined,
    ...(nodes && { partitionNodes: nodes }),
  });
  log(
    `chaos: ${opts.seconds} s, seed ${opts.seed}, ${plan.length} faults planned, ${opts.strategies.length} strategies at ${opts.load.rate} req/s each in turn`,
  );
  const rec = makeRecorder(idPrefix);
  let current: ChaosStrategy | undefined;
  const nemesis = startNemesis({ cluster, rec, current: () => current, log }, plan);
  const crashes: ChaosHistory['crashes'] = [];
  const stopWatching = watchCrashes(cluster, nemesis, rec.t0, crashes, log);
  const endAt = rec.t0 + opts.seconds * 1_000;
  // Whole rounds, each turn sized again from the time left (turns.ts): every strategy gets its share.
  const planned = plannedTurns(opts.seconds, opts.strategies.length);
  const slices: Slice[] = [];
  let skipped = 0;
  const takeTurn = async (s: ChaosStrategy, kind: Slice['kind'], body: () => Promise<void>) => {
    const leftBefore = await readLeft(cluster, s.store);
    const startMs = Date.now() - rec.t0;
    current = kind === 'load' ? s : undefined;
    await body();
    current = undefined;
    // a paused holder of this turn answers once the nemesis resumes it; its turn is over only then
    if (!(await pollUntil(() => rec.inFlight(s.name) === 0, 60_000, 20))) log(`  ${s.name}: requests still out after its turn`);
    // a deduction a cut held up is retried by TCP after the heal: it must land in this turn's count, not the next one's
    const answeredAt = Date.now();
    const quiet = () => nemesis.net.quietFor(answeredAt, Date.now(), (g) => holdsUpWritesTo(g, s.store));
    if (!quiet()) {
      const waited = await pollUntil(quiet, QUIET_BOUND_MS, 50);
      log(
        waited
          ? `  ${s.name}: ${Date.now() - answeredAt} ms for the network to be quiet after its last answer`
          : `  ${s.name}: the network not quiet within ${QUIET_BOUND_MS} ms of its turn`,
      );
    }
    slices.push({ strategy: s.name, store: s.store, startMs, endMs: Date.now() - rec.t0, leftBefore, leftAfter: await readLeft(cluster, s.store), kind });
  };
  await stepOf(progress, 'load', 'load under the nemesis', async () => {
    let loadMs = 0;
    for (let i = 0; ; i++) {
      const turnMs = nextTurnMs(endAt - Date.now(), planned - i, overheadSoFar(Date.now() - rec.t0, loadMs, i));
      if (turnMs === undefined) break;
      const s = opts.strategies[i % opts.strategies.length]!;
      log(`  turn ${i + 1}: ${s.name}${s.fenced ? ' (fenced=1)' : ''}, ${(turnMs / 1000).toFixed(1)} s`);
      await takeTurn(s, 'load', async () => {
        const loadStart = Date.now();
        skipped += await runLoad(rec, cluster.info.nginx, s, opts.load, Math.min(endAt, Date.now() + turnMs));
        loadMs += Date.now() - loadStart;
      });
    }
    await nemesis.done;
    await stopWatching();
  });
  return stepOf(progress, 'check', 'heal, recovery probes and the checker', () => healAndCheck());
  async function healAndCheck(): Promise<ChaosResult> {
    if (cluster.layout) await runningNetwork(cluster).heal(); // a cut a failed heal left in force
    await ensureReady(cluster); // anything a failed heal left down
    const healed = nemesis.events.map((e) => e.healedMs);
    const lastHealMs = healed.every((h) => h !== undefined) ? Math.max(0, ...(healed as number[])) : Date.now() - rec.t0;
    log(`chaos: every server healed (last heal at ${(lastHealMs / 1000).toFixed(1)} s); recovery probes …`);
    const recoveryMs: Record<string, number | null> = {};
    let since = rec.t0 + lastHealMs;
    for (const s of opts.strategies) {
      await takeTurn(s, 'recovery', async () => {
        const deadline = since + RECOVERY_BOUND_MS;
        recoveryMs[s.name] = null;
        while (Date.now() < deadline) {
          const probe = await sendRecorded(rec, cluster.info.nginx, 'nginx', s, 'probe');
          if (isSold(probe.outcome)) {
            recoveryMs[s.name] = Date.now() - since;
            break;
          }
          await sleep(PROBE_INTERVAL_MS);
        }
      });
      since = Date.now();
    }
    const leftovers = await leftoversAfter(cluster, LEFTOVER_BOUND_MS);
    const sales = (await readSales(liveBase(cluster))) ?? {};
    const history: ChaosHistory = {
      seed: opts.seed,
      strategies: opts.strategies,
      requests: rec.requests,
      slices,
      faults: nemesis.events,
      sales,
      lastHealMs,
      recoveryMs,
      recoveryBoundMs: RECOVERY_BOUND_MS,
      leftovers,
      crashes,
      idPrefix,
      replicated: cluster.servers.redisReplica !== undefined,
      ...(cluster.layout && { hosts: true }),
    };
    const ledger: ChaosResult['ledger'] = {};
    for (const store of ledgerStores) {
      const storeOf = new Map(rec.requests.map((r) => [r.id, r.store]));
      const recorded = Object.entries(sales).reduce((n, [id, count]) => n + (storeOf.get(id) === store ? count : 0), 0);
      ledger[store] = { deducted: startLeft[store]! - (await readLeft(cluster, store)), recorded };
    }
    const verdict = checkHistory(history);
    // The instances' own log judges what the checker cannot see: the run's reads and resets too.
    const internal = internalErrorsIn(path.join(cluster.info.dir, 'logs'));
    if (internal.count > 0) {
      verdict.ok = false;
      verdict.failures.push(`the instances logged ${internal.count} answers 500 (each a bug, whoever asked); the first: ${internal.first}`);
    }
    return { history, verdict, plan, skipped, ledger, internalErrors: internal.count };
  }
}
