// A Redis server kept entirely in memory: the main one, and each independent RedLock master.
import fs from 'node:fs';
import path from 'node:path';
import type { Binaries } from './packages.js';
import { redisPing } from './probes.js';
import type { ServerSpec } from './server.js';

export function redisSpec(name: string, port: number, dir: string, bin: Binaries, password?: string): ServerSpec {
  const workDir = path.join(dir, 'redis', name);
  // The password goes in a file only its owner can read, not on the command line (where ps shows it).
  const confFile = path.join(workDir, 'redis.conf');
  return {
    name,
    port,
    logFile: path.join(dir, 'logs', `${name}.log`),
    startTimeoutMs: 10_000,
    stopGraceMs: 5_000,
    prepare: () => {
      fs.mkdirSync(workDir, { recursive: true });
      const conf = password ? `requirepass "${password.replace(/["\\]/g, (c) => `\\${c}`)}"\n` : '';
      fs.writeFileSync(confFile, `# written by stocklab (src/cluster/redis.ts) at every start\n${conf}`, { mode: 0o600 });
    },
    launch: () => ({
      command: bin.redisServer,
      args: [
        confFile,
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
    healthy: () => redisPing(port, password),
  };
}
