// The hosts topology keeps nginx in a namespace of its own; this forwarder, on the machine,
// publishes its port on 127.0.0.1 as every other topology does, so clients need not know.
import path from 'node:path';
import type { HostPort } from '../config.js';
import { REPO_ROOT } from '../paths.js';
import { healthOk } from './probes.js';
import type { ServerSpec } from './server.js';

export const PUBLISH_NAME = 'nginx-publish';

export function publishSpec(port: number, target: HostPort, dir: string): ServerSpec {
  return {
    name: PUBLISH_NAME,
    port,
    logFile: path.join(dir, 'logs', `${PUBLISH_NAME}.log`),
    startTimeoutMs: 30_000,
    stopGraceMs: 5_000,
    launch: () => ({
      command: process.execPath,
      args: ['--import', 'tsx', 'src/net/forwarder-main.ts', '--listen', `127.0.0.1:${port}`, '--target', `${target.host}:${target.port}`],
      cwd: REPO_ROOT,
    }),
    // through it, nginx answers for an instance
    healthy: () => healthOk(port),
  };
}
