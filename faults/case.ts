// One case of a scenario (one strategy, one variant): a clean start, the requests it sends (each
// with its own id), and its row, measured from the store and GET /sales once every request is over.
// A case that throws still yields a row (✗, with the error), and never leaves an instance stopped.
import { unitsLeft } from '../src/cluster/stores.js';
import { errorMessage } from './errors.js';
import { ensureReady, liveBase, resumeAll } from './cluster-ops.js';
import { isUndocumentedKey, outcomeKey, sendCheck, type CheckParams, type Sent } from './client.js';
import { RequestIds } from './request-ids.js';
import { measure, type CaseKey, type FaultRow, type Measured } from './row.js';
import type { FaultContext } from './scenario.js';
import { readSales, resetStock } from './service.js';

export interface Verdict {
  expected: string;
  /** Whether the measured figures are what the scenario expects. */
  holds(m: Measured): boolean;
  recoverMs?: number | null;
  recoverBoundMs?: number;
  details?: string[];
  facts?: Record<string, string | number | boolean>;
}

/** Where a request goes: an instance or an nginx. */
export interface Target {
  base: string;
  via: string;
}

/** Every request is bounded: waitMs (≤ 10 s here) plus work plus a frozen holder's pause fit well inside. */
const REQUEST_TIMEOUT_MS = 30_000;

export class Case {
  readonly sent: Sent[] = [];
  private readonly ids: RequestIds;
  private readonly pending = new Set<Promise<Sent>>();

  constructor(readonly key: CaseKey) {
    this.ids = new RequestIds(key.scenario, key.strategy, key.variant, key.store);
  }

  /** Sends one deduction with a fresh request id; its answer joins the case's tally. */
  send(to: Target, role: string, params: CheckParams, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Sent> {
    const p = sendCheck({
      base: to.base,
      via: to.via,
      role,
      strategy: this.key.strategy,
      store: this.key.store,
      params,
      id: this.ids.next(role),
      timeoutMs,
    }).then((s) => {
      this.sent.push(s);
      this.pending.delete(p);
      return s;
    });
    this.pending.add(p);
    return p;
  }

  /** Waits for every request still out (each is bounded by its own timeout). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}

/** The case's figures: the store's own count and GET /sales, read once nothing is in flight. */
async function measureCase(ctx: FaultContext, c: Case, initial: number): Promise<Measured> {
  const left = await unitsLeft(ctx.cluster.info, c.key.store);
  const sales = await readSales(liveBase(ctx.cluster));
  return measure(c.key, c.sent, initial, left, sales);
}

/** An undocumented answer, with what it takes to find it in the instance's log: its request id and message. */
function undocumentedText(s: Sent): string[] {
  const key = outcomeKey(s.outcome);
  if (!isUndocumentedKey(key)) return [];
  const message = s.outcome.kind === 'answer' && s.outcome.message ? `: ${s.outcome.message}` : '';
  return [`undocumented answer: ${s.role} ${s.id} via ${s.via} → ${key}${message}`];
}

export async function runCase(ctx: FaultContext, key: CaseKey, initial: number, body: (c: Case) => Promise<Verdict>): Promise<FaultRow> {
  const label = `${key.scenario} · ${key.strategy} · ${key.variant}${key.store === 'mysql' ? '' : ` · store=${key.store}`}`;
  ctx.log(`${label} …`);
  const t0 = Date.now();
  const c = new Case(key);
  let verdict: Verdict;
  const details: string[] = [];
  try {
    await ensureReady(ctx.cluster);
    await resetStock(liveBase(ctx.cluster), initial);
    verdict = await body(c);
  } catch (err) {
    details.push(`case failed: ${errorMessage(err)}`);
    verdict = { expected: 'case failed', holds: () => false };
  } finally {
    resumeAll(ctx.cluster);
  }
  await c.settled();
  let m: Measured;
  try {
    await ensureReady(ctx.cluster); // a failed case may have left a server down: measure from a whole cluster
    m = await measureCase(ctx, c, initial);
  } catch (err) {
    details.push(`not measured: ${errorMessage(err)}`);
    m = measure(key, c.sent, initial, initial, {});
    verdict = { ...verdict, holds: () => false };
  }
  const row: FaultRow = {
    ...m,
    recoverMs: verdict.recoverMs ?? null,
    ...(verdict.recoverBoundMs !== undefined && { recoverBoundMs: verdict.recoverBoundMs }),
    expected: verdict.expected,
    asExpected: verdict.holds(m),
    details: [...(verdict.details ?? []), ...details, ...c.sent.flatMap(undocumentedText)],
    facts: verdict.facts ?? {},
    ms: Date.now() - t0,
  };
  const double = row.doubleDeductions === null ? 'n/a' : row.doubleDeductions;
  const recover = row.recoverMs === null ? '' : `, recover ${row.recoverMs} ms`;
  ctx.log(
    `  sold ${row.sold}, deducted ${row.deducted}, oversold ${row.oversold}, double ${double}, unknown ${row.outcomeUnknown}${recover} → ${row.asExpected ? '✓' : '✗'} ${row.expected}`,
  );
  for (const d of row.details) ctx.log(`  ${d}`);
  return row;
}
