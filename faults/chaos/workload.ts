// The steady workload: one strategy at a time, through nginx, at a fixed rate with a bound on the
// requests in flight (never a blast), each request with its own X-Request-Id.
import { sleep } from '../../src/time.js';
import { sendCheck, type CheckParams } from '../client.js';
import type { ChaosStrategy, Request } from './history.js';

/** Lease and wait of every chaos request: short, so a dead holder's lease ends within the run. */
export const CHAOS_TTL_MS = 3_000;
export const CHAOS_WAIT_MS = 2_000;
/** Longer than any fault (8 s) plus a lock wait and a restart: a request outlives a freeze of its instance. */
export const CHAOS_REQUEST_TIMEOUT_MS = 30_000;

export function paramsOf(s: ChaosStrategy): CheckParams {
  return { ttlMs: CHAOS_TTL_MS, waitMs: CHAOS_WAIT_MS, ...(s.fenced && { fenced: 1 }), ...s.params };
}

export interface Recorder {
  readonly t0: number;
  /** A fresh request id for this strategy and role. */
  nextId(strategy: string, role: string): string;
  record(r: Request): void;
}

/** Sends one request and records it when it is over. */
export async function sendRecorded(rec: Recorder, base: string, via: string, s: ChaosStrategy, role: string, extra: CheckParams = {}): Promise<Request> {
  const id = rec.nextId(s.name, role);
  const sent = await sendCheck({
    base,
    via,
    role,
    strategy: s.name,
    store: s.store,
    params: { ...paramsOf(s), ...extra },
    id,
    timeoutMs: CHAOS_REQUEST_TIMEOUT_MS,
  });
  const r: Request = { ...sent, strategy: s.name, store: s.store, at: sent.startedAt - rec.t0, end: sent.startedAt + sent.ms - rec.t0 };
  rec.record(r);
  return r;
}

export interface LoadSpec {
  /** requests a second */
  rate: number;
  /** at most this many unanswered at once; a send that would exceed it is skipped, not queued */
  maxInFlight: number;
}

/** Sends at `rate` until `untilMs` (absolute), then waits for every request still out. Returns how many were skipped at the in-flight cap. */
export async function runLoad(rec: Recorder, nginx: string, s: ChaosStrategy, spec: LoadSpec, untilMs: number): Promise<number> {
  const out = new Set<Promise<Request>>();
  const interval = 1_000 / spec.rate;
  let skipped = 0;
  for (let next = Date.now(); next < untilMs; next += interval) {
    const wait = next - Date.now();
    if (wait > 0) await sleep(wait);
    if (out.size >= spec.maxInFlight) {
      skipped++;
      continue;
    }
    const p = sendRecorded(rec, nginx, 'nginx', s, 'load').finally(() => out.delete(p));
    out.add(p);
  }
  await Promise.all([...out]);
  return skipped;
}
