// A Redis server kept entirely in memory: the main one, and each independent RedLock master.
import fs from 'node:fs';
import path from 'node:path';
import type { Binaries } from './packages.js';
import { redisPing } from './probes.js';
import type { ServerSpec } from './server.js';

export function redisSpec(name: string, port: number, dir: string, bin: Binaries): ServerSpec {
  const workDir = path.join(dir, 'redis', name);
  return {
    name,
    port,
    logFile: path.join(dir, 'logs', `${name}.log`),
    startTimeoutMs: 10_000,
    stopGraceMs: 5_000,
    prepare: () => void fs.mkdirSync(workDir, { recursive: true }),
    launch: () => ({
      command: bin.redisServer,
      args: [
        '--port', String(port),
        '--bind', '127.0.0.1',
        // No persistence: a restarted server starts empty, which is what the crash scenarios mean.
        '--save', '',
        '--appendonly', 'no',
        '--daemonize', 'no',
        '--dir', workDir,
        '--logfile', '', // stdout, which goes to logs/<name>.log
      ],
    }),
    healthy: () => redisPing(port),
  };
}
