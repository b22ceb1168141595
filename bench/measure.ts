// The bench's three measurements: a throughput window, the oversell race, and the GET /noop ceiling.
import { UNKNOWN_OUTCOME, answerKey, isAllowedAnswer, isRefusal } from '../src/http/answers.js';
import { loadServiceConfig } from '../src/config.js';
import type { StoreKind } from '../src/stock/store.js';
import type { CatalogEntry } from '../src/load/catalog.js';
import { fireLoad } from '../src/load/fire.js';
import { checkUrl, oversoldOf, race, resetStock } from '../src/load/race.js';
import { unansweredOf, type RaceFigures, type SoldCheck, type Topology } from '../report/bench/report.js';
import { settledUnitsLeft, unitsLeft, type StoreAddresses } from '../src/cluster/stores.js';
import { windowTimeOf, type WindowTime } from '../report/bench/window-time.js';
import { wrkRate } from './wrk.js';

/** Units in stock during a throughput window: enough that no window runs out. */
export const WINDOW_STOCK = 1_000_000;
/** How long the requests still in flight after a window may take to finish before they are cut. */
const DRAIN_BOUND_SECONDS = 20;

export interface WindowSettings {
  connections: number;
  warmupSeconds: number;
  windowSeconds: number;
  /** Query parameters for GET /check/lock: workMs, and ttlMs/waitMs when given. */
  params: Record<string, number>;
}

export interface WindowSample {
  goodput: number;
  refusedPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** The store checked after the window: every 200 of the run (warm-up and drain too) against units gone. */
  check: SoldCheck;
  /** Where the window's time went, part by part. */
  time: WindowTime;
}

const { ttlMsDefault: DEFAULT_TTL_MS, retryMsDefault: DEFAULT_RETRY_MS } = loadServiceConfig({}).limits;

/** What the catalog expects of this run: a leased lock whose work outlasts its lease has its own outcome. */
export function expectedOutcome(s: CatalogEntry, topology: Topology, params: Record<string, number>): 'exact' | 'oversells' {
  const workOverTtl = (params.workMs ?? 0) > (params.ttlMs ?? DEFAULT_TTL_MS);
  if (workOverTtl && s.expected.workOverTtl) return s.expected.workOverTtl;
  return topology === 'one' ? s.expected.oneInstance : s.expected.threeInstances;
}

/**
 * One throughput window: a stock that cannot run out, a discarded warm-up, a measured span, then
 * the requests in flight finish (none is abandoned mid-deduction to disturb the next window). Their
 * waits for the lock end with the span (waitUntil): the drain is the holders' work, not the queue's.
 */
export async function measureWindow(base: string, stores: StoreAddresses, s: CatalogEntry, settings: WindowSettings): Promise<WindowSample> {
  const { sample } = await runWindow(base, stores, s, settings, WINDOW_STOCK, settings.warmupSeconds + settings.windowSeconds + DRAIN_BOUND_SECONDS);
  if (!sample) throw new Error('load generator: a window came back without its measured span');
  return sample;
}

/** A sold-out window's measured span shorter than this share of the window is too short for a goodput sample. */
export const MIN_SPAN_SHARE = 0.25;

/**
 * A window that is also the race: `units` in stock, sized to run out inside the measured span; the
 * load goes on until the first 409 sold_out (bounded by maxSeconds), then drains. The span before
 * the stock ran out gives a goodput sample (none if it was shorter than MIN_SPAN_SHARE of the
 * window); the whole run, counted from the store, is the race.
 */
export async function measureSoldOutWindow(
  base: string,
  stores: StoreAddresses,
  s: CatalogEntry,
  settings: WindowSettings,
  units: number,
  maxSeconds: number,
): Promise<{ sample?: WindowSample; race: RaceFigures }> {
  const { sample, race } = await runWindow(base, stores, s, { ...settings, untilSoldOut: true }, units, maxSeconds);
  return { ...(sample && sample.spanSeconds >= MIN_SPAN_SHARE * settings.windowSeconds && { sample }), race: { ...race, window: true } };
}

async function runWindow(
  base: string,
  stores: StoreAddresses,
  s: CatalogEntry,
  settings: WindowSettings & { untilSoldOut?: boolean },
  units: number,
  maxSeconds: number,
): Promise<{ sample?: WindowSample & { spanSeconds: number }; race: RaceFigures }> {
  const store = s.stores[0];
  const begin = Date.now();
  await resetStock(base, units);
  const sent = Date.now();
  const r = await fireLoad({
    url: checkUrl(base, s.name, store, settings.params),
    connections: settings.connections,
    window: {
      warmupSeconds: settings.warmupSeconds,
      seconds: settings.windowSeconds,
      untilSoldOut: settings.untilSoldOut === true,
      // an optimistic loop gives up when its next pause (up to retryMs) would cross its deadline
      cutWaitsAfterMs: settings.params.retryMs ?? DEFAULT_RETRY_MS,
    },
    maxSeconds,
    timeoutSeconds: 30,
    classify: false,
  });
  const replied = Date.now();
  const unanswered = r.noAnswer + (r.truncated ? settings.connections : 0);
  const left = unanswered > 0 ? await settledUnitsLeft(stores, store) : await unitsLeft(stores, store);
  const end = Date.now();
  if (!r.marks) throw new Error('load generator: a window came back without its marks');
  const check = { oversold: oversoldOf(r.okTotal, units, left), unanswered };
  const requests = r.answeredTotal + r.noAnswer;
  const race = raceFigures(
    { requests, initial: units, connections: settings.connections },
    {
      byAnswer: r.byAnswer,
      ok: r.okTotal,
      noAnswer: r.noAnswer,
      truncated: r.truncated,
      left,
      seconds: (r.marks.lastAnswerAt - r.marks.startedAt) / 1000,
      answered: r.answeredTotal,
    },
  );
  const sample =
    r.seconds > 0
      ? {
          goodput: (r.byStatus[200] ?? 0) / r.seconds,
          refusedPerSec: (r.byStatus[503] ?? 0) / r.seconds,
          p50Ms: r.p50Ms,
          p99Ms: r.p99Ms,
          check,
          time: windowTimeOf({ begin, sent, replied, end }, r.marks, settings.warmupSeconds),
          spanSeconds: r.seconds,
        }
      : undefined;
  return { ...(sample && { sample }), race };
}

/** The oversell race: more requests than units, to the end (or maxSeconds), counted from the store. */
export async function measureRace(
  base: string,
  stores: StoreAddresses,
  s: CatalogEntry,
  size: { requests: number; initial: number; connections: number; maxSeconds: number; params: Record<string, number> },
  onAnswers?: (answered: number) => void,
): Promise<RaceFigures> {
  const store: StoreKind = s.stores[0];
  const f = await race({
    target: base,
    stores,
    strategy: s.name,
    store,
    params: size.params,
    initial: size.initial,
    requests: size.requests,
    connections: size.connections,
    maxSeconds: size.maxSeconds,
    onAnswers,
  });
  return raceFigures(size, {
    byAnswer: f.byAnswer,
    ok: f.ok,
    noAnswer: f.noAnswer,
    truncated: f.truncated,
    left: f.left,
    seconds: f.seconds,
    answered: f.ok + f.soldOut + f.otherStatus,
  });
}

/** A race's figures from its answers and the units left in the store. */
function raceFigures(
  size: { requests: number; initial: number; connections: number },
  f: { byAnswer: Record<string, number>; ok: number; answered: number; noAnswer: number; truncated: boolean; left: number; seconds: number },
): RaceFigures {
  const unexpected = Object.entries(f.byAnswer).reduce((n, [key, c]) => n + (isAllowedAnswer(key) ? 0 : c), 0);
  return {
    requests: size.requests,
    initial: size.initial,
    ok: f.ok,
    soldOut: f.byAnswer[answerKey(409, 'sold_out')] ?? 0,
    byAnswer: f.byAnswer,
    refused: Object.entries(f.byAnswer).reduce((n, [key, c]) => n + (isRefusal(key) ? c : 0), 0),
    unknownOutcome: f.byAnswer[UNKNOWN_OUTCOME] ?? 0,
    unexpected: unexpected + f.noAnswer,
    left: f.left,
    deducted: size.initial - f.left,
    oversold: oversoldOf(f.ok, size.initial, f.left),
    unanswered: unansweredOf(size.requests, f.answered, f.noAnswer, f.truncated, size.connections),
    seconds: f.seconds,
    truncated: f.truncated,
  };
}

/** GET /noop: the bench's own load generator, measured like a strategy's window. */
export async function measureNoop(base: string, settings: Pick<WindowSettings, 'connections' | 'warmupSeconds' | 'windowSeconds'>): Promise<number> {
  const r = await fireLoad({
    url: `${base}/noop`,
    connections: settings.connections,
    window: { warmupSeconds: settings.warmupSeconds, seconds: settings.windowSeconds },
    maxSeconds: settings.warmupSeconds + settings.windowSeconds + DRAIN_BOUND_SECONDS,
    timeoutSeconds: 10,
    classify: false,
  });
  return (r.byStatus[200] ?? 0) / r.seconds;
}

/** GET /noop with wrk, the reference the bench's ceiling is compared with. */
export function measureNoopWithWrk(wrk: string, base: string, settings: Pick<WindowSettings, 'connections' | 'windowSeconds'>): Promise<number> {
  return wrkRate(wrk, `${base}/noop`, settings.connections, settings.windowSeconds);
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
      throw new Error(
        `${store} at the given address holds ${seen} after ${base} reset it to ${probe}: the store addresses are not the target's (pass --mysql/--redis)`,
      );
    }
  }
}
