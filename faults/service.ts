// The service calls the lab makes besides deductions: reset the stock (which also clears the sales
// record and leftover locks) and read GET /sales, the committed deductions by request id.
import { z } from 'zod';
import { httpGet } from '../src/cluster/probes.js';
import { pollUntil } from '../src/time.js';

export async function resetStock(base: string, count: number): Promise<void> {
  const res = await fetch(`${base}/stock/reset`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ count }),
    signal: AbortSignal.timeout(15_000),
  });
  if (!res.ok) throw new Error(`POST ${base}/stock/reset: ${res.status} ${await res.text()}`);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // reported below with the body itself
  }
}

const salesSchema = z.object({ ok: z.literal(true), sales: z.record(z.string(), z.number().int().min(0)) });

/** Request id → how many times its deduction committed. */
export type Sales = Record<string, number>;

/** GET /sales, both stores together; undefined when the service has no such route (404). */
export async function readSales(base: string): Promise<Sales | undefined> {
  const reply = await httpGet(`${base}/sales`, 10_000);
  if (!reply) throw new Error(`GET ${base}/sales: no answer`);
  if (reply.status === 404) return undefined;
  const parsed = salesSchema.safeParse(parseJson(reply.body));
  if (reply.status !== 200 || !parsed.success) throw new Error(`GET ${base}/sales: ${reply.status} ${reply.body.slice(0, 200)}`);
  return parsed.data.sales;
}

/** Waits until `base`'s GET /health reports every check up (its connections followed a failover, say). */
export async function waitHealthy(base: string, timeoutMs: number): Promise<void> {
  const ok = await pollUntil(
    async () => {
      const reply = await httpGet(`${base}/health`, 1_000);
      return reply?.status === 200 && (parseJson(reply.body) as { ok?: unknown } | undefined)?.ok === true;
    },
    timeoutMs,
    50,
  );
  if (!ok) throw new Error(`${base}/health: not every check up after ${timeoutMs} ms`);
}
