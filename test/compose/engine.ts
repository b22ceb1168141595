// A Docker engine for the compose test: Debian's docker.io and debootstrap installed when missing,
// and a dockerd started when none answers. Only the daemon started here is stopped, by its pid.
import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { pollUntil } from '../../src/time.js';

const run = promisify(execFile);

function has(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** apt-get installs what is missing of docker.io and debootstrap (the machine's Debian mirror). */
export async function ensureTools(log: (line: string) => void): Promise<void> {
  const missing = [...(has('dockerd') ? [] : ['docker.io']), ...(has('debootstrap') ? [] : ['debootstrap'])];
  if (missing.length === 0) return;
  log(`engine: apt-get install ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...missing], { env, maxBuffer: 64 << 20 }).catch(async () => {
    await run('apt-get', ['update', '-q'], { env, maxBuffer: 64 << 20 });
    await run('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...missing], { env, maxBuffer: 64 << 20 });
  });
}

async function answers(): Promise<boolean> {
  try {
    await run('docker', ['info', '--format', '{{.ServerVersion}}'], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

export interface Engine {
  version: string;
  /** The pid of the dockerd started here; undefined when one was already running. */
  startedPid: number | undefined;
  stop(): Promise<void>;
}

/** The running daemon, or one started now. Throws (never skips) when none can be had. */
export async function ensureDaemon(logDir: string, log: (line: string) => void): Promise<Engine> {
  let startedPid: number | undefined;
  if (!(await answers())) {
    const logFile = path.join(logDir, 'dockerd.log');
    const out = fs.openSync(logFile, 'a');
    const child = spawn('dockerd', [], { detached: true, stdio: ['ignore', out, out] });
    fs.closeSync(out);
    child.unref();
    startedPid = child.pid;
    log(`engine: started dockerd (pid ${startedPid}, log ${logFile})`);
    let exited = false;
    child.on('exit', () => (exited = true));
    const up = await pollUntil(async () => exited || (await answers()), 60_000, 500);
    if (!up || exited) {
      const tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n');
      throw new Error(`dockerd did not start (${exited ? 'it exited' : 'no answer within 60 s'}); its log:\n${tail}`);
    }
  }
  const { stdout } = await run('docker', ['info', '--format', '{{.ServerVersion}} {{.Driver}} cgroup v{{.CgroupVersion}}']);
  return {
    version: stdout.trim(),
    startedPid,
    async stop() {
      if (startedPid === undefined) return;
      const pid = startedPid;
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        return; // already gone
      }
      const alive = () => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      if (!(await pollUntil(() => !alive(), 30_000, 200))) process.kill(pid, 'SIGKILL');
    },
  };
}
