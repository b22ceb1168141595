// One stocklab service instance (src/main.ts, bundled: src/bundle.ts), pointed at the cluster's servers.
import path from 'node:path';
import { serviceEnvFor, type ClusterConfig } from './layout.js';
import { REPO_ROOT } from '../paths.js';
import { placementOf } from './placement.js';
import { healthOk } from './probes.js';
import { serviceBundle } from '../bundle.js';
import type { ServerSpec } from './server.js';

export function instanceSpec(cfg: ClusterConfig, port: number, dir: string, env: Record<string, string> = {}): ServerSpec {
  const place = placementOf(cfg, `app-${port}`);
  return {
    name: `app-${port}`,
    port,
    ...place,
    logFile: path.join(dir, 'logs', `app-${port}.log`),
    startTimeoutMs: 60_000, // three at once on a busy 2-core machine
    stopGraceMs: 10_000,
    launch: () => ({
      command: process.execPath,
      args: ['--enable-source-maps', serviceBundle()],
      cwd: REPO_ROOT,
      // HOST pinned: whatever the caller's environment says, nothing listens beyond loopback (or its private address)
      env: { ...process.env, ...serviceEnvFor(cfg, port), HOST: place.host, ...env },
    }),
    healthy: () => healthOk({ host: place.host, port }),
  };
}
