// One measured race: reset the stock, fire the requests, read what is left from the store itself.
import { fire, type FireResult } from './fire.js';
import { settledUnitsLeft, unitsLeft, type StoreAddresses } from '../cluster/stores.js';
import type { StoreKind } from '../stock/store.js';

export interface RaceOptions {
  /** Base URL of an instance or of nginx. */
  target: string;
  stores: StoreAddresses;
  strategy: string;
  store?: StoreKind;
  /** Extra query parameters: workMs, ttlMs, waitMs, retryMs. */
  params?: Record<string, number>;
  initial: number;
  requests: number;
  connections: number;
  maxSeconds?: number;
  /** Called about once a second with the answers so far, for progress lines. */
  onAnswers?: (answered: number) => void;
  /** Load processes to spread the clients over (default 1). */
  processes?: number;
}

export interface RaceResult extends FireResult {
  strategy: string;
  store: StoreKind;
  initial: number;
  left: number;
  /** initial − left: units that really left the store. */
  deducted: number;
  /** Successes reported to clients minus units really deducted: > 0 means sold twice. */
  oversold: number;
}

/** Successes reported to clients minus units that really left the store: > 0 means sold twice. */
export function oversoldOf(ok: number, initial: number, left: number): number {
  return ok - (initial - left);
}

export async function resetStock(target: string, count: number): Promise<void> {
  const res = await fetch(`${target}/stock/reset`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ count }),
  });
  if (!res.ok) throw new Error(`reset failed: ${res.status} ${await res.text()}`);
}

export function checkUrl(target: string, strategy: string, store: StoreKind | undefined, params: Record<string, number> = {}): string {
  const q = new URLSearchParams({ strategy, ...(store && { store }) });
  for (const [k, v] of Object.entries(params)) q.set(k, String(v));
  return `${target}/check/lock?${q}`;
}

/** How long a race's client waits for an answer, beyond the request's own waitMs. */
const RACE_TIMEOUT_SECONDS = 30;

export async function race(opts: RaceOptions): Promise<RaceResult> {
  const store = opts.store ?? 'mysql';
  await resetStock(opts.target, opts.initial);
  const fired = await fire({
    url: checkUrl(opts.target, opts.strategy, opts.store, opts.params),
    requests: opts.requests,
    connections: opts.connections,
    maxSeconds: opts.maxSeconds,
    // A request may wait its waitMs for the lock before its work and its stores' bounds: the client
    // waits that long on top of its 30 s, or a slow but answered sale would be counted unanswered.
    timeoutSeconds: RACE_TIMEOUT_SECONDS + (opts.params?.waitMs ?? 0) / 1000,
    onAnswers: opts.onAnswers,
    processes: opts.processes,
  });
  // Requests left without an answer may still be deducting: wait for the count to hold still.
  const left = fired.truncated || fired.noAnswer > 0 ? await settledUnitsLeft(opts.stores, store) : await unitsLeft(opts.stores, store);
  const deducted = opts.initial - left;
  return { ...fired, strategy: opts.strategy, store, initial: opts.initial, left, deducted, oversold: oversoldOf(fired.ok, opts.initial, left) };
}
