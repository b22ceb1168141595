// One measured run: reset the stock, fire, wait until the store is quiet, read what is left from it.
import { setTimeout as sleep } from 'node:timers/promises';
import { loadServiceConfig } from '../src/config.js';
import type { StoreKind } from '../src/stock/store.js';
import { fire, type FireResult } from './fire.js';
import { checkUrl, resetStock } from './race.js';
import { oversoldOf, unansweredOf, type Ceiling, type RunResult, type Topology } from './report.js';
import { unitsLeft, type StoreAddresses } from './stores.js';
import type { CatalogEntry } from './catalog.js';

export interface FireSettings {
  requests: number;
  connections: number;
  maxSeconds: number;
  /** Query parameters for GET /check/lock: workMs, and ttlMs/waitMs when given. */
  params: Record<string, number>;
  initial: number;
}

/** Called every few seconds of a long run with the answers so far. */
export type Ticker = (answered: number, seconds: number) => void;

const TICK_MS = 5_000;

async function fireTicking(url: string, s: FireSettings, tick?: Ticker): Promise<FireResult> {
  let answered = 0;
  const t0 = Date.now();
  const timer = tick && setInterval(() => tick(answered, (Date.now() - t0) / 1000), TICK_MS);
  try {
    return await fire({
      url,
      requests: s.requests,
      connections: s.connections,
      maxSeconds: s.maxSeconds,
      onAnswer: () => answered++,
    });
  } finally {
    clearInterval(timer);
  }
}

/**
 * Requests abandoned by a truncated run (or timed out) may still be deducting on the server.
 * Read until the count holds still, so the figure is final and the next run starts clean.
 */
async function settledUnitsLeft(stores: StoreAddresses, store: StoreKind, quietMs = 1_000, boundMs = 20_000): Promise<number> {
  const deadline = Date.now() + boundMs;
  let last = await unitsLeft(stores, store);
  while (Date.now() < deadline) {
    await sleep(quietMs);
    const now = await unitsLeft(stores, store);
    if (now === last) return now;
    last = now;
  }
  return last;
}

/** The service's default lease, used when the bench does not pass ttlMs. */
const DEFAULT_TTL_MS = loadServiceConfig({}).limits.ttlMsDefault;

/** What the catalog expects of this run: a leased lock whose work outlasts its lease has its own outcome. */
export function expectedOutcome(s: CatalogEntry, topology: Topology, params: Record<string, number>): 'exact' | 'oversells' {
  const workOverTtl = (params.workMs ?? 0) > (params.ttlMs ?? DEFAULT_TTL_MS);
  if (workOverTtl && s.expected.workOverTtl) return s.expected.workOverTtl;
  return topology === 'one' ? s.expected.oneInstance : s.expected.threeInstances;
}

export async function measureStrategy(
  base: string,
  topology: Topology,
  stores: StoreAddresses,
  s: CatalogEntry,
  settings: FireSettings,
  tick?: Ticker,
): Promise<RunResult> {
  const store = s.stores[0];
  await resetStock(base, settings.initial);
  const f = await fireTicking(checkUrl(base, s.name, store, settings.params), settings, tick);
  const unsure = f.truncated || f.noAnswer > 0;
  const left = unsure ? await settledUnitsLeft(stores, store) : await unitsLeft(stores, store);
  return {
    strategy: s.name,
    family: s.family,
    store,
    topology,
    expected: expectedOutcome(s, topology, settings.params),
    requests: settings.requests,
    ok: f.ok,
    soldOut: f.soldOut,
    errors: f.otherStatus + f.noAnswer,
    byStatus: f.byStatus,
    initial: settings.initial,
    left,
    deducted: settings.initial - left,
    oversold: oversoldOf(f.ok, settings.initial, left),
    unanswered: unansweredOf(settings.requests, f.ok + f.soldOut + f.otherStatus, f.noAnswer, f.truncated, settings.connections),
    rps: f.rps,
    p50Ms: f.p50Ms,
    p99Ms: f.p99Ms,
    seconds: f.seconds,
    truncated: f.truncated,
    efficiency: null,
  };
}

export async function measureCeiling(base: string, topology: Topology, settings: FireSettings): Promise<Ceiling> {
  const f = await fireTicking(`${base}/noop`, settings);
  return { topology, rps: f.rps, p50Ms: f.p50Ms, p99Ms: f.p99Ms, errors: f.otherStatus + f.noAnswer };
}

/**
 * Resets through the service, then reads the store directly: if the two disagree, the store
 * addresses do not belong to the cluster under test and every "oversold" would be fiction.
 */
export async function checkStoresMatch(base: string, stores: StoreAddresses, kinds: readonly StoreKind[], probe = 4321): Promise<void> {
  await resetStock(base, probe);
  for (const store of kinds) {
    const seen = await unitsLeft(stores, store);
    if (seen !== probe) {
      throw new Error(`${store} at the given address holds ${seen} after ${base} reset it to ${probe}: the store addresses are not the target's (pass --mysql/--redis)`);
    }
  }
}
