// The integration files' setup file: wait until every shared cluster is up (global-setup.ts boots
// them while the unit and lock files run), or fail with why one did not start.
import fs from 'node:fs';
import { inject } from 'vitest';
import { sleep } from '../../src/time.js';
import { readyMark } from './workers.js';

/** Longer than any boot: a cluster's servers each have their own start bound well within it. */
const BOOT_BOUND_MS = 300_000;

async function sharedClustersReady(): Promise<void> {
  const claims = inject('clusterClaims');
  const marks = inject('clusters').map((_, i) => readyMark(claims, i));
  const deadline = Date.now() + BOOT_BOUND_MS;
  for (;;) {
    const seen = marks.map((m) => (fs.existsSync(m) ? fs.readFileSync(m, 'utf8') : undefined));
    const failed = seen.find((s) => s?.startsWith('failed: '));
    if (failed) throw new Error(failed.slice('failed: '.length));
    if (seen.every((s) => s === 'ready')) return;
    if (Date.now() > deadline) throw new Error(`the shared test clusters were not up after ${BOOT_BOUND_MS / 1000} s`);
    await sleep(100);
  }
}

await sharedClustersReady();
