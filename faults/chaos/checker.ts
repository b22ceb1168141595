// The checker: judges the whole history once the run is over, per strategy, from the store's own
// counts and GET /sales, never from what the service said it did.
import { isRefusal } from '../../src/http/answers.js';
import { isOutcomeUnknown, isSold, isUndocumentedKey, outcomeKey } from '../client.js';
import type { ChaosHistory, Request } from './history.js';

export interface StrategyVerdict {
  strategy: string;
  store: string;
  fenced: boolean;
  requests: number;
  /** 200s, and unknown outcomes whose id GET /sales recorded */
  sold: number;
  /** Σ over its slices of the store's count before − after */
  deducted: number;
  /** sold − deducted */
  oversold: number;
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
  /** Every check holds. */
  exact: boolean;
  /** Not exact, but only where the catalog says it may not be (holderPause 'oversells' without fencing; a failover of the Redis it lives on): reported, not failed. */
  asCatalogSays: boolean;
  /** Why a strategy that is not exact is reported, not failed. */
  allowedBy?: string;
  problems: string[];
}

export interface ChaosVerdict {
  strategies: StrategyVerdict[];
  /** ids in GET /sales with the run's prefix that the run never sent */
  phantomSales: string[];
  leftovers: string[];
  /** The run passes: every strategy exact or as the catalog says, no phantom sale, nothing left held, each recovered within the bound. */
  ok: boolean;
  failures: string[];
}

const bump = (m: Record<string, number>, key: string) => void (m[key] = (m[key] ?? 0) + 1);

/** A fault that stops a holder mid-lease: a frozen or paused instance, a frozen Redis / ZooKeeper / RedLock master. */
const PAUSE_LIKE = new Set(['freeze-instance', 'pause-holder', 'freeze-redis', 'freeze-redlock', 'freeze-zookeeper', 'kill-zookeeper', 'kill-zookeeper-leader', 'stop-redis', 'kill-redlock']);

const SHOWN = 5;
const idsText = (ids: readonly string[]) => `${ids.slice(0, SHOWN).join(', ')}${ids.length > SHOWN ? ` … (${ids.length})` : ''}`;

function judgeStrategy(h: ChaosHistory, name: string): StrategyVerdict {
  const s = h.strategies.find((x) => x.name === name);
  if (!s) throw new Error(`no such chaos strategy ${name}`);
  const mine: Request[] = h.requests.filter((r) => r.strategy === name);
  const slices = h.slices.filter((x) => x.strategy === name);
  const answers: Record<string, number> = {};
  let sold = 0;
  let unknown = 0;
  let refused = 0;
  const soldNotRecorded: string[] = [];
  const saleWithoutAnswer: string[] = [];
  const undocumented: string[] = [];
  for (const r of mine) {
    const key = outcomeKey(r.outcome);
    bump(answers, key);
    const committed = h.sales[r.id] ?? 0;
    if (isSold(r.outcome)) {
      sold++;
      if (committed !== 1) soldNotRecorded.push(r.id);
    } else if (isOutcomeUnknown(r.outcome)) {
      unknown++;
      if (committed > 0) sold++;
    } else {
      if (isRefusal(key) || key === '409 sold_out' || key === 'unreachable') refused++;
      if (committed > 0) saleWithoutAnswer.push(r.id);
    }
    if (isUndocumentedKey(key)) undocumented.push(`${r.id} → ${key}`);
  }
  const double = mine.filter((r) => (h.sales[r.id] ?? 0) > 1).map((r) => r.id);
  const deducted = slices.reduce((n, x) => n + (x.leftBefore - x.leftAfter), 0);
  const oversold = sold - deducted;
  const overlapsItsSlices = (f: ChaosHistory['faults'][number]) => slices.some((x) => f.injectedMs < x.endMs && (f.healedMs ?? h.lastHealMs) > x.startMs);
  const pausedDuringItsSlices = h.faults.some((f) => PAUSE_LIKE.has(f.kind) && overlapsItsSlices(f));
  const failoverDuringItsSlices = h.faults.some((f) => (f.kind === 'failover-redis' || (h.replicated === true && f.kind === 'freeze-redis')) && overlapsItsSlices(f));
  const recoveryMs = h.recoveryMs[name] ?? null;
  const problems: string[] = [];
  if (oversold > 0) problems.push(`oversold ${oversold}: ${sold} sold, ${deducted} deducted`);
  if (oversold < 0) problems.push(`${-oversold} unit(s) deducted that no answer or sale record accounts for`);
  if (double.length > 0) problems.push(`deducted more than once: ${idsText(double)}`);
  if (soldNotRecorded.length > 0) problems.push(`200 not counted once by GET /sales: ${idsText(soldNotRecorded)}`);
  if (saleWithoutAnswer.length > 0) problems.push(`sold with an answer that allows no sale: ${idsText(saleWithoutAnswer)}`);
  if (undocumented.length > 0) problems.push(`undocumented answers: ${idsText(undocumented)}`);
  const exact = problems.length === 0;
  // Only an oversell (a lost update of two holders) is what the catalog allows under a pause; a 200
  // missing from /sales, a sale behind a refusal or an undocumented answer never is.
  const onlyOversold = soldNotRecorded.length === 0 && saleWithoutAnswer.length === 0 && undocumented.length === 0 && oversold >= 0;
  // A failover loses the newest writes together: a Redis store's deductions with their sale records.
  const onlyLostWrites = saleWithoutAnswer.length === 0 && undocumented.length === 0 && double.length === 0 && oversold >= 0 && (soldNotRecorded.length === 0 || s.store === 'redis');
  const allowedBy = exact
    ? undefined
    : s.mayOversellUnderPause && pausedDuringItsSlices && onlyOversold
      ? 'catalog: holderPause oversells'
      : s.mayLoseInFailover && failoverDuringItsSlices && onlyLostWrites
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
    unknown,
    refused,
    answers,
    double,
    soldNotRecorded,
    saleWithoutAnswer,
    undocumented,
    recoveryMs,
    pausedDuringItsSlices,
    failoverDuringItsSlices,
    exact,
    asCatalogSays,
    ...(allowedBy && { allowedBy }),
    problems,
  };
}

export function checkHistory(h: ChaosHistory): ChaosVerdict {
  const strategies = h.strategies.map((s) => judgeStrategy(h, s.name));
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
  return { strategies, phantomSales, leftovers, ok: failures.length === 0, failures };
}
