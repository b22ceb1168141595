// One measured run: reset the stock, fire, wait until the store is quiet, read what is left from it.
import { loadServiceConfig } from '../src/config.js';
import type { StoreKind } from '../src/stock/store.js';
import { fire } from './fire.js';
import { race, resetStock } from './race.js';
import { unansweredOf, type Ceiling, type RunResult, type Topology } from './report.js';
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

/** Runs `run`, reporting the answers so far to `tick` every few seconds. */
async function ticking<T>(tick: Ticker | undefined, run: (onAnswer: () => void) => Promise<T>): Promise<T> {
  let answered = 0;
  const t0 = Date.now();
  const timer = tick && setInterval(() => tick(answered, (Date.now() - t0) / 1000), TICK_MS);
  try {
    return await run(() => answered++);
  } finally {
    clearInterval(timer);
  }
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
  const f = await ticking(tick, (onAnswer) =>
    race({ target: base, stores, strategy: s.name, store, params: settings.params, initial: settings.initial,
      requests: settings.requests, connections: settings.connections, maxSeconds: settings.maxSeconds, onAnswer }),
  );
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
    left: f.left,
    deducted: f.deducted,
    oversold: f.oversold,
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
  const f = await fire({ url: `${base}/noop`, requests: settings.requests, connections: settings.connections, maxSeconds: settings.maxSeconds });
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
