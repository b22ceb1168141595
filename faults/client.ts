// One GET /check/lock carrying its own X-Request-Id, and what came of it. A fresh connection per
// request (no keep-alive pool), so an instance killed or restarted between two requests never
// leaves a dead pooled socket behind to turn the next request into a false "no answer".
import http from 'node:http';
import { answerKey, isAllowedAnswer, UNKNOWN_OUTCOME } from '../src/http/answers.js';
import type { StoreKind } from '../src/stock/store.js';

/** Query parameters of GET /check/lock beyond strategy and store. */
export type CheckParams = Record<string, string | number>;

export type Outcome =
  /** The server (or nginx) answered. */
  | { kind: 'answer'; status: number; error?: string; param?: string; warning?: string; message?: string }
  /** Sent, but the connection died or the deadline passed before an answer: it may have deducted. */
  | { kind: 'no-answer'; reason: string }
  /** The connection was refused: the request never reached a server, nothing can have happened. */
  | { kind: 'unreachable'; reason: string };

export interface Sent {
  id: string;
  /** Which server it went to ("app-0", "nginx", …), for the report's details. */
  via: string;
  role: string;
  outcome: Outcome;
  startedAt: number;
  ms: number;
}

export interface CheckRequest {
  base: string;
  strategy: string;
  store?: StoreKind;
  params?: CheckParams;
  id: string;
  via: string;
  role: string;
  timeoutMs: number;
}

function checkUrl(base: string, strategy: string, store: StoreKind | undefined, params: CheckParams = {}): string {
  const q = new URLSearchParams({ strategy, ...(store && { store }) });
  for (const [k, v] of Object.entries(params)) q.set(k, String(v));
  return `${base}/check/lock?${q}`;
}

function parseBody(text: string): { error?: string; param?: string; warning?: string; message?: string } {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    return { error: str(body.error), param: str(body.param), warning: str(body.warning), message: str(body.message) };
  } catch {
    // nginx's own 502/504 pages are HTML; anything else not JSON is worth quoting
    return { message: text.replace(/\s+/g, ' ').trim().slice(0, 200) };
  }
}

export function sendCheck(r: CheckRequest): Promise<Sent> {
  const startedAt = Date.now();
  const done = (outcome: Outcome): Sent => ({ id: r.id, via: r.via, role: r.role, outcome, startedAt, ms: Date.now() - startedAt });
  return new Promise((resolve) => {
    const req = http.get(checkUrl(r.base, r.strategy, r.store, r.params), { agent: false, headers: { 'x-request-id': r.id } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve(done({ kind: 'answer', status: res.statusCode ?? 0, ...parseBody(text) })));
      res.on('error', (err) => resolve(done({ kind: 'no-answer', reason: err.message })));
    });
    // Bounded: a request nobody answers is given up on and counted as outcome unknown.
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${r.timeoutMs} ms`)), r.timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve(done(err.code === 'ECONNREFUSED' ? { kind: 'unreachable', reason: err.message } : { kind: 'no-answer', reason: err.message })),
    );
  });
}

/** The answer's key as the service documents answers ("200", "503 fenced"), or "no answer" / "unreachable". */
export function outcomeKey(o: Outcome): string {
  if (o.kind === 'no-answer') return 'no answer';
  if (o.kind === 'unreachable') return 'unreachable';
  if (o.status === 400) return o.param ? `400 ${o.param}` : '400';
  return answerKey(o.status, o.status === 200 ? undefined : o.error);
}

/** 502/504 from nginx, the service's own 503 outcome_unknown, or no answer at all: the deduction may or may not have happened. */
export function isOutcomeUnknown(o: Outcome): boolean {
  return o.kind === 'no-answer' || (o.kind === 'answer' && (o.status === 502 || o.status === 504 || outcomeKey(o) === UNKNOWN_OUTCOME));
}

export const isSold = (o: Outcome): boolean => o.kind === 'answer' && o.status === 200;

/** An answer key that is neither documented (src/http/answers.ts), nor a 400 (the lab's own request), nor nginx's or the network's unknown outcome: a bug. */
export function isUndocumentedKey(key: string): boolean {
  return !isAllowedAnswer(key) && !key.startsWith('400') && !['502', '504', 'no answer', 'unreachable'].includes(key);
}
