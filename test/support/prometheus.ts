// Prometheus's HTTP API as the tests ask it: an instant query, and one polled until its result
// holds (Prometheus sees a change only at its next scrape).
import { sleep } from '../../src/time.js';

export interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

export async function promQuery(api: string, q: string): Promise<Sample[]> {
  const res = await fetch(`${api}/api/v1/query?${new URLSearchParams({ query: q })}`);
  const body = (await res.json()) as { status: string; data: { result: Sample[] }; error?: string };
  if (body.status !== 'success') throw new Error(`${q}: ${body.error ?? res.status}`);
  return body.data.result;
}

/** Polls `q` until `done` holds for its result, bounded; returns the last result either way. */
export async function promQueryUntil(api: string, q: string, done: (r: Sample[]) => boolean, boundMs = 20_000): Promise<Sample[]> {
  const until = Date.now() + boundMs;
  for (;;) {
    const r = await promQuery(api, q);
    if (done(r) || Date.now() > until) return r;
    await sleep(500);
  }
}

/** The first sample's value (NaN when the result is empty). */
export const firstValue = (r: Sample[]): number => Number(r[0]?.value[1] ?? NaN);
