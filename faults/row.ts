// One row of the fault table, and how it is computed from the requests a case sent, the store's own
// count and GET /sales. Nothing here trusts an answer for what the store says.
import type { StoreKind } from '../src/stock/store.js';
import { isOutcomeUnknown, isSold, isUndocumentedKey, outcomeKey, type Sent } from './client.js';
import type { Sales } from './service.js';

export interface FaultRow {
  scenario: string;
  strategy: string;
  /** unfenced / fenced, project nginx / default nginx, mysql stopped, … */
  variant: string;
  store: StoreKind;
  initial: number;
  left: number;
  /** 200 answers + outcome-unknown requests whose id GET /sales recorded. */
  sold: number;
  /** initial − left, read from the store itself. */
  deducted: number;
  /** sold − deducted: > 0 sold units that were not there; < 0 took units nobody was told about. */
  oversold: number;
  /** Request ids whose deduction committed more than once; null when GET /sales is missing. */
  doubleDeductions: number | null;
  /** 502/504 from nginx, 503 outcome_unknown from the service, or no answer. */
  outcomeUnknown: number;
  /** 503 answers by error. */
  refused: Record<string, number>;
  /** Every answer by key ("200", "409 sold_out", "503 fenced", "502", "no answer", "400 fenced"). */
  answers: Record<string, number>;
  /** The same, by the request's role in the case (holder, sell, next, client, inflight, probe). */
  byRole: Record<string, Record<string, number>>;
  /** Answers outside the documented list (and not an nginx 502/504 or a lost connection). */
  undocumented: number;
  /** Answered anything but 200 or an unknown outcome (409, 503, 400, 500 …), yet GET /sales shows the id committed: a false answer. */
  refusedButCommitted: number;
  /** What the scenario times (see its description); null = not within its bound. */
  recoverMs: number | null;
  /** The bound recoverMs was measured against, ms. */
  recoverBoundMs?: number;
  expected: string;
  asExpected: boolean;
  /** Short facts that explain the row: the holder's answer, attempts, an error. */
  details: string[];
  /** The same facts where a test needs them as values (attempts, conclusive, resentTo, …). */
  facts: Record<string, string | number | boolean>;
  ms: number;
}

/** What a case knows once it is over, before the verdict. */
export type Measured = Omit<FaultRow, 'expected' | 'asExpected' | 'details' | 'facts' | 'recoverMs' | 'recoverBoundMs' | 'ms'>;

export interface CaseKey {
  scenario: string;
  strategy: string;
  variant: string;
  store: StoreKind;
}

const bump = (m: Record<string, number>, key: string) => void (m[key] = (m[key] ?? 0) + 1);

export function measure(key: CaseKey, sent: readonly Sent[], initial: number, left: number, sales: Sales | undefined): Measured {
  const answers: Record<string, number> = {};
  const byRole: Record<string, Record<string, number>> = {};
  const refused: Record<string, number> = {};
  let sold = 0;
  let outcomeUnknown = 0;
  let undocumented = 0;
  let refusedButCommitted = 0;
  const committed = (id: string) => (sales?.[id] ?? 0) > 0;
  for (const s of sent) {
    const o = s.outcome;
    bump(answers, outcomeKey(o));
    bump((byRole[s.role] ??= {}), outcomeKey(o));
    if (isSold(o)) sold++;
    else if (isOutcomeUnknown(o)) {
      outcomeUnknown++;
      if (committed(s.id)) sold++; // reconciled: the store recorded it, so the customer got it
    } else if (o.kind === 'answer') {
      if (o.status === 503) bump(refused, o.error ?? '?');
      if (committed(s.id)) refusedButCommitted++;
    }
    if (isUndocumentedKey(outcomeKey(o))) undocumented++;
  }
  const doubleDeductions = sales === undefined ? null : Object.values(sales).filter((n) => n > 1).length;
  const deducted = initial - left;
  return {
    ...key,
    initial,
    left,
    sold,
    deducted,
    oversold: sold - deducted,
    doubleDeductions,
    outcomeUnknown,
    refused,
    answers,
    byRole,
    undocumented,
    refusedButCommitted,
  };
}

/**
 * Safety, the part every scenario asserts: nothing oversold, no false answer, nothing undocumented,
 * nothing deducted twice. Without GET /sales the last cannot be known, so it is not safe.
 */
export function isSafe(m: Measured): boolean {
  return m.oversold === 0 && m.refusedButCommitted === 0 && m.undocumented === 0 && m.doubleDeductions === 0;
}

/** Requests the service rejected as malformed (400 …): a lab bug or a missing feature, never a fault's effect. */
export function badRequests(m: Pick<Measured, 'answers'>): number {
  return Object.entries(m.answers).reduce((n, [key, count]) => n + (key.startsWith('400') ? count : 0), 0);
}
