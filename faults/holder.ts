// The moves the holder scenarios share: send a request that freezes its instance at a hook and wait
// until it has (state T), and sell units through the other instances meanwhile. Sequenced, never
// raced: each step waits for the previous one to be observed.
import { pollUntil } from '../src/time.js';
import type { Case } from './case.js';
import { pidOf, type Instance } from './cluster-ops.js';
import { outcomeKey, type CheckParams, type Sent } from './client.js';
import { isStopped } from './process-state.js';

/** How long a hook may take to stop its instance (a lock wait included). */
export const FREEZE_TIMEOUT_MS = 10_000;

export type Frozen =
  /** The instance stopped itself at the hook; `answer` settles once it runs again (or dies). */
  | { frozen: true; pid: number; answer: Promise<Sent> }
  /** It answered instead (e.g. 400: a parameter it does not support). */
  | { frozen: false; answer: Sent };

/** Sends the holder's request to `at` and waits until its instance has stopped at the hook. */
export async function freezeHolder(c: Case, at: Instance, params: CheckParams): Promise<Frozen> {
  const pid = pidOf(at);
  let answered: Sent | undefined;
  const answer = c.send(at, 'holder', params).then((s) => (answered = s));
  await pollUntil(() => answered !== undefined || isStopped(pid), FREEZE_TIMEOUT_MS, 5);
  if (isStopped(pid)) return { frozen: true, pid, answer };
  if (answered) return { frozen: false, answer: answered };
  throw new Error(`${at.via} did not stop at the hook within ${FREEZE_TIMEOUT_MS} ms (params ${JSON.stringify(params)})`);
}

/**
 * Sells `units` one request at a time, alternating between `through` (the instances not frozen), so
 * every sale is over before the frozen holder runs again.
 */
export async function sellThrough(c: Case, through: readonly Instance[], units: number, params: CheckParams): Promise<Sent[]> {
  const out: Sent[] = [];
  for (let k = 0; k < units; k++) {
    const at = through[k % through.length];
    if (!at) throw new Error('sellThrough: no instance to sell through');
    out.push(await c.send(at, 'sell', params));
  }
  return out;
}

/** "20 × 200", "19 × 200, 1 × 503 lock_timeout": a batch's answers, for the details. */
export function answersText(sent: readonly Sent[]): string {
  const counts = new Map<string, number>();
  for (const s of sent) counts.set(outcomeKey(s.outcome), (counts.get(outcomeKey(s.outcome)) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${n} × ${k}`).join(', ');
}

/** One request's answer for the details: "holder: 503 fenced after 4120 ms". */
export function holderText(s: Sent, label = 'holder'): string {
  const warning = s.outcome.kind === 'answer' && s.outcome.warning ? ` (warning ${s.outcome.warning})` : '';
  return `${label}: ${outcomeKey(s.outcome)}${warning} after ${s.ms} ms`;
}
