// How many integration files run at once, each worker on a shared cluster of its own: read by the
// vitest config (the project's workers) and by the global setup (the clusters it boots).
import path from 'node:path';

export const INTEGRATION_WORKERS = 2;

/** Where global-setup.ts marks shared cluster i's boot ("ready", or "failed: why"), read by shared-ready.ts. */
export function readyMark(claims: string, i: number): string {
  return path.join(claims, `boot-${i}`);
}
