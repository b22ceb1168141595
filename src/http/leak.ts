// A real memory leak, on purpose and only with FAULT_INJECTION=1 (GET /check/lock?leakKb=N): it
// exists so a test can show the soak's growth check firing on a real leak (faults/soak/verdict.ts),
// not only on made-up series. Each request keeps N KB that are never freed, for the life of the
// process.

/** Never emptied: what makes it a leak. */
const kept: Buffer[] = [];

/** Any non-zero byte: a zero-filled buffer may get the kernel's shared zero pages and never count in RSS. */
const FILL = 0x6c;

/** Keeps `kb` KB for the life of the process, every page written so it counts in the RSS the soak samples. */
export function leak(kb: number): void {
  if (kb <= 0) return;
  // Outside V8's heap (a Buffer's memory is external): the soak sees it in the instance's RSS.
  kept.push(Buffer.alloc(kb * 1024, FILL));
}
