// The checker: judges the whole history once the run is over, per strategy, from the store's own
// counts and GET /sales, never from what the service said it did.
import { isRefusal } from '../../src/http/answers.js';
import { isOutcomeUnknown, isSold, isUndocumentedKey, outcomeKey } from '../client.js';
import { cutsAnInstance, cutsRedisFromSentinel } from './cuts.js';
import type { ChaosHistory, FaultEvent, Request, Slice } from './history.js';

export interface StrategyVerdict {
  strategy: string;
  store: string;
  fenced: boolean;
  requests: number;
  /** 200s, and unknown outcomes whose id GET /sales recorded */
  sold: number;
  /** Σ over its slices of the store's count before − after */
  deducted: number;
  /** Σ over its turns of sold − deducted where a turn sold more than it deducted */
  oversold: number;
  /** Σ over its turns of deducted − sold where a turn deducted more than it sold: units no answer or sale record accounts for */
  unaccounted: number;
  unknown: number;
  /** documented refusals (503 …), 409 sold_out, and unreachable */
  refused: number;
  answers: Record<string, number>;
  /** ids GET /sales counts more than once */
  double: string[];
  /** 200 answers GET /sales does not count exactly once */
  soldNotRecorded: string[];
  /** ids GET /sales counts whose answer allows no sale (a refusal, a 409, a 400 …) */
  saleWithoutAnswer: string[];
  undocumented: string[];
  recoveryMs: number | null;
  /** Whether any pause-like fault (a frozen instance, a paused holder, a frozen store) overlapped its slices. */
  pausedDuringItsSlices: boolean;
  /** Whether a Redis failover (or, replicated, a frozen master Sentinel may fail over) overlapped its slices. */
  failoverDuringItsSlices: boolean;
  /** Requests sent in its load turns, and faults that struck during them: what its verdict rests on. */
  seen: { requests: number; faults: number };
  /** Set when too little was seen for "exact" to say anything: what was seen, and the least needed. */
  notJudged?: string;
  /** Every check holds. */
  exact: boolean;
  /** Not exact, but only where the catalog says it may not be (holderPause 'oversells' without fencing; a failover of the Redis it lives on): reported, not failed. */
  asCatalogSays: boolean;
  /** Why a strategy that is not exact is reported, not failed. */
  allowedBy?: string;
  problems: string[];
}

/** What a strategy's turns must have seen for its verdict to count. */
export interface JudgeNeeds {
  requests: number;
  /** faults that struck during its load turns */
  faults: number;
}

/** A chaos run's needs: a few seconds of its load, and at least one fault during its turns. */
export const CHAOS_NEEDS: JudgeNeeds = { requests: 50, faults: 1 };

export interface ChaosVerdict {
  strategies: StrategyVerdict[];
  /** Strategies that saw too little to be judged (each one's `notJudged` says what it saw). */
  notJudged: string[];
  /** ids in GET /sales with the run's prefix that the run never sent */
  phantomSales: string[];
  leftovers: string[];
  /** The run passes: every strategy exact or as the catalog says, no phantom sale, nothing left held, each recovered within the bound. */
  ok: boolean;
  failures: string[];
}

const bump = (m: Record<string, number>, key: string) => void (m[key] = (m[key] ?? 0) + 1);

/** A fault that stops a holder mid-lease: a frozen or paused instance, a frozen Redis / ZooKeeper / RedLock master. */
const PAUSE_LIKE = new Set([
  'freeze-instance',
  'pause-holder',
  'freeze-redis',
  'freeze-redlock',
  'freeze-zookeeper',
  'kill-zookeeper',
  'kill-zookeeper-leader',
  'stop-redis',
  'kill-redlock',
]);

/** A pause, or a partition that cut an instance from some server (its holder can neither renew nor write on time). */
const isPause = (f: FaultEvent): boolean => PAUSE_LIKE.has(f.kind) || (f.partition !== undefined && cutsAnInstance(f.partition.grudge));

/**
 * A Redis failover: the nemesis's own; on the replicated topology also a frozen master, or a
 * partition that cut a Redis server from a Sentinel (Sentinel may fail the master over).
 */
const isFailover = (h: ChaosHistory, f: FaultEvent): boolean =>
  f.kind === 'failover-redis' ||
  (h.replicated === true && (f.kind === 'freeze-redis' || (f.partition !== undefined && cutsRedisFromSentinel(f.partition.grudge))));

const SHOWN = 5;
const idsText = (ids: readonly string[]) => `${ids.slice(0, SHOWN).join(', ')}${ids.length > SHOWN ? ` … (${ids.length})` : ''}`;

/**
 * One turn reconciled on its own: the store's count around it against the units its requests sold.
 * Summed over a strategy's turns, one turn's oversell and another's unaccounted unit would cancel.
 */
interface TurnTally {
  slice?: Slice;
  sold: number;
  deducted: number;
}

/**
 * Each request's turn: the last of the strategy's slices that began at or before it was sent. A turn
 * begins before its first send and ends after its last answer, so in a run every request falls
 * inside one; a request before every turn (none in a run) goes with the first.
 */
function turnsOf(slices: readonly Slice[], requests: readonly Request[]): { tallies: TurnTally[]; turnOf: (r: Request) => TurnTally } {
  const tallies: TurnTally[] = [...slices]
    .sort((a, b) => a.startMs - b.startMs)
    .map((slice) => ({ slice, sold: 0, deducted: slice.leftBefore - slice.leftAfter }));
  // A strategy with requests and no turn: nothing was counted around them, so nothing was deducted.
  if (tallies.length === 0 && requests.length > 0) tallies.push({ sold: 0, deducted: 0 });
  const turnOf = (r: Request) => {
    let turn = tallies[0]!;
    for (const t of tallies) if ((t.slice?.startMs ?? 0) <= r.at) turn = t;
    return turn;
  };
  return { tallies, turnOf };
}

function judgeStrategy(h: ChaosHistory, name: string, needs: JudgeNeeds): StrategyVerdict {
  const s = h.strategies.find((x) => x.name === name);
  if (!s) throw new Error(`no such chaos strategy ${name}`);
  const mine: Request[] = h.requests.filter((r) => r.strategy === name);
  const slices = h.slices.filter((x) => x.strategy === name);
  const answers: Record<string, number> = {};
  let sold = 0;
  let unknown = 0;
  let refused = 0;
  const soldNotRecorded: Request[] = [];
  const saleWithoutAnswer: string[] = [];
  const undocumented: string[] = [];
  /** 400s: the run's own request was refused as bad input, so it tells nothing of the strategy. */
  const badRequests: string[] = [];
  const { tallies, turnOf } = turnsOf(slices, mine);
  const sell = (r: Request) => {
    sold++;
    turnOf(r).sold++;
  };
  for (const r of mine) {
    const key = outcomeKey(r.outcome);
    bump(answers, key);
    const committed = h.sales[r.id] ?? 0;
    if (isSold(r.outcome)) {
      sell(r);
      if (committed !== 1) soldNotRecorded.push(r);
    } else if (isOutcomeUnknown(r.outcome)) {
      unknown++;
      if (committed > 0) sell(r);
    } else {
      if (isRefusal(key) || key === '409 sold_out' || key === 'unreachable') refused++;
      if (committed > 0) saleWithoutAnswer.push(r.id);
    }
    if (isUndocumentedKey(key)) undocumented.push(`${r.id} → ${key}`);
    if (key.startsWith('400')) badRequests.push(`${r.id} → ${key}`);
  }
  const double = mine.filter((r) => (h.sales[r.id] ?? 0) > 1).map((r) => r.id);
  const deducted = slices.reduce((n, x) => n + (x.leftBefore - x.leftAfter), 0);
  const oversoldTurns = tallies.filter((t) => t.sold > t.deducted);
  const oversold = oversoldTurns.reduce((n, t) => n + t.sold - t.deducted, 0);
  const unaccounted = tallies.reduce((n, t) => n + Math.max(0, t.deducted - t.sold), 0);
  const overlaps = (f: FaultEvent, x: Slice) => f.injectedMs < x.endMs && (f.healedMs ?? h.lastHealMs) > x.startMs;
  /** Some fault of the kind struck during the turn (a turn with no slice had none). */
  const struck = (t: TurnTally, kind: (f: FaultEvent) => boolean) => t.slice !== undefined && h.faults.some((f) => kind(f) && overlaps(f, t.slice!));
  const failover = (f: FaultEvent) => isFailover(h, f);
  const pausedDuringItsSlices = h.faults.some((f) => isPause(f) && slices.some((x) => overlaps(f, x)));
  const failoverDuringItsSlices = h.faults.some((f) => failover(f) && slices.some((x) => overlaps(f, x)));
  const recoveryMs = h.recoveryMs[name] ?? null;
  // Recovery probes come after every heal: they show liveness, not what a fault did.
  const inLoad = (t: TurnTally) => t.slice === undefined || t.slice.kind === 'load';
  const seen = {
    requests: mine.filter((r) => inLoad(turnOf(r))).length,
    faults: h.faults.filter((f) => slices.some((x) => x.kind === 'load' && overlaps(f, x))).length,
  };
  const notJudged =
    seen.requests < needs.requests || seen.faults < needs.faults
      ? `${seen.requests} requests and ${seen.faults} faults in its turns; judging needs ${needs.requests} and ${needs.faults}`
      : undefined;
  const problems: string[] = [];
  if (oversold > 0) {
    // Turn by turn when the totals alone would not show it (another turn's unaccounted unit hides it).
    const byTurn =
      oversold === sold - deducted
        ? ''
        : ` (turn by turn: ${oversoldTurns.map((t) => `${t.sold} sold, ${t.deducted} deducted in the turn at ${((t.slice?.startMs ?? 0) / 1000).toFixed(1)} s`).join('; ')})`;
    problems.push(`oversold ${oversold}: ${sold} sold, ${deducted} deducted${byTurn}`);
  }
  if (unaccounted > 0) problems.push(`${unaccounted} unit(s) deducted that no answer or sale record accounts for`);
  if (double.length > 0) problems.push(`deducted more than once: ${idsText(double)}`);
  if (soldNotRecorded.length > 0) problems.push(`200 not counted once by GET /sales: ${idsText(soldNotRecorded.map((r) => r.id))}`);
  if (saleWithoutAnswer.length > 0) problems.push(`sold with an answer that allows no sale: ${idsText(saleWithoutAnswer)}`);
  if (undocumented.length > 0) problems.push(`undocumented answers: ${idsText(undocumented)}`);
  if (badRequests.length > 0) problems.push(`the run's own requests refused as bad input, so they judge nothing: ${idsText(badRequests)}`);
  const exact = problems.length === 0;
  // Only an oversell (a lost update of two holders) in a turn a pause struck is what the catalog
  // allows; a 200 missing from /sales, a sale behind a refusal, a unit deducted twice under one id
  // (a lost update never applies one request twice), or an undocumented answer never is.
  const onlyOversold =
    soldNotRecorded.length === 0 &&
    saleWithoutAnswer.length === 0 &&
    undocumented.length === 0 &&
    badRequests.length === 0 &&
    double.length === 0 &&
    unaccounted === 0;
  // A failover loses the newest writes together: a Redis store's deductions with their sale records,
  // in the turns it struck.
  const onlyLostWrites =
    saleWithoutAnswer.length === 0 &&
    undocumented.length === 0 &&
    badRequests.length === 0 &&
    double.length === 0 &&
    unaccounted === 0 &&
    (soldNotRecorded.length === 0 || s.store === 'redis') &&
    soldNotRecorded.every((r) => struck(turnOf(r), failover));
  const allowedBy = exact
    ? undefined
    : s.mayOversellUnderPause && oversoldTurns.every((t) => struck(t, isPause)) && onlyOversold
      ? 'catalog: holderPause oversells'
      : s.mayLoseInFailover && oversoldTurns.every((t) => struck(t, failover)) && onlyLostWrites
        ? 'a Redis failover loses acknowledged writes (§2.9)'
        : undefined;
  const asCatalogSays = allowedBy !== undefined;
  if (recoveryMs === null) problems.push(`no 200 within ${h.recoveryBoundMs} ms of the last heal`);
  return {
    strategy: name,
    store: s.store,
    fenced: s.fenced,
    requests: mine.length,
    sold,
    deducted,
    oversold,
    unaccounted,
    unknown,
    refused,
    answers,
    double,
    soldNotRecorded: soldNotRecorded.map((r) => r.id),
    saleWithoutAnswer,
    undocumented,
    recoveryMs,
    pausedDuringItsSlices,
    failoverDuringItsSlices,
    seen,
    ...(notJudged && { notJudged }),
    exact,
    asCatalogSays,
    ...(allowedBy && { allowedBy }),
    problems,
  };
}

/**
 * The run's verdict. A strategy that saw fewer requests or faults than `needs` is marked not
 * judged: a violation it saw still fails, but its "exact" says nothing.
 */
export function checkHistory(h: ChaosHistory, needs: JudgeNeeds = CHAOS_NEEDS): ChaosVerdict {
  const strategies = h.strategies.map((s) => judgeStrategy(h, s.name, needs));
  const sent = new Set(h.requests.map((r) => r.id));
  const phantomSales = Object.keys(h.sales).filter((id) => id.startsWith(h.idPrefix) && !sent.has(id));
  const leftovers = h.leftovers.map((l) => `${l.where}: ${l.what}`);
  const failures: string[] = [];
  for (const v of strategies) {
    const safety = v.problems.filter((p) => !p.startsWith('no 200 within'));
    if (!v.exact && !v.asCatalogSays) failures.push(...safety.map((p) => `${v.strategy}: ${p}`));
    if (v.recoveryMs === null) failures.push(`${v.strategy}: no 200 within ${h.recoveryBoundMs} ms of the last heal`);
  }
  if (phantomSales.length > 0) failures.push(`sales recorded for ids never sent: ${idsText(phantomSales)}`);
  failures.push(...leftovers.map((l) => `left held after every heal: ${l}`));
  failures.push(...h.crashes.map((c) => `${c.target} exited at ${(c.atMs / 1000).toFixed(1)} s with no fault on it`));
  const notJudged = strategies.filter((v) => v.notJudged !== undefined).map((v) => v.strategy);
  return { strategies, notJudged, phantomSales, leftovers, ok: failures.length === 0, failures };
}
