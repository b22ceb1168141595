// One timed GET with a JSON answer, for the lock tests.
export async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown>; ms: number }> {
  const t0 = Date.now();
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(20_000) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, ms: Date.now() - t0 };
}
