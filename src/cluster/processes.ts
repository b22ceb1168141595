// Spawning server processes and ending them again, by process group, safely.
// Every server gets its own process group (setsid) so that stop/kill also reach the processes it
// forks (nginx workers), and so a Ctrl-C in the terminal does not race our orderly shutdown.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { readStat } from '../net/procfs.js';
import { pollUntil } from '../time.js';

export interface SpawnSpec {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  logFile: string;
  /** Survive this process: logs go to the file anyway; the child is unref'd and not killed on exit. */
  detached?: boolean;
}

export interface Spawned {
  pid: number;
  child: ChildProcess;
  /** Resolves with the exit code/signal once the process has exited. */
  exited: Promise<string>;
}

/** What identifies a process beyond its pid, so a reused pid is never signalled. */
export interface ProcessIdentity {
  pid: number;
  cmdline: string;
  startTime: string;
}

const attached = new Set<number>();
let exitHookInstalled = false;

// Children of a non-detached cluster must not outlive us: kill their groups on exit or on a signal.
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const killAll = () => {
    for (const pid of attached) signalGroup(pid, 'SIGKILL');
    attached.clear();
  };
  process.once('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      killAll();
      // Only re-raise when nobody else handles the signal, to keep the default "die" behaviour.
      if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
    };
    process.once(sig, onSignal);
  }
}

export function logHeader(logFile: string, line: string): void {
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  fs.appendFileSync(logFile, `\n--- ${new Date().toISOString()} ${line}\n`);
}

export function spawnLogged(spec: SpawnSpec): Spawned {
  logHeader(spec.logFile, `${spec.command} ${spec.args.join(' ')}`);
  const fd = fs.openSync(spec.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env ?? process.env,
      stdio: ['ignore', fd, fd],
      detached: true,
    });
  } finally {
    fs.closeSync(fd); // the child holds its own copy
  }
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `code ${code}`));
    child.once('error', (err) => resolve(`spawn error: ${err.message}`));
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${spec.name}: could not spawn ${spec.command} (see ${spec.logFile})`);
  if (spec.detached) child.unref();
  else {
    installExitHook();
    attached.add(pid);
    void exited.then(() => attached.delete(pid));
  }
  return { pid, child, exited };
}

/** Sends a signal to the whole process group led by pid; false if no such group. */
export function signalGroup(pgid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, sig);
    return true;
  } catch {
    return false;
  }
}

/** Live (non-zombie) pids in a process group, read from /proc. */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') out.push(Number(entry));
  }
  return out;
}

/** The one-letter state of /proc/<pid>/stat ('R', 'S', 'T' = stopped, 'Z', …); undefined if gone. */
export function processState(pid: number): string | undefined {
  return readStat(pid)?.state;
}

export function identify(pid: number): ProcessIdentity | undefined {
  const stat = readStat(pid);
  if (!stat || stat.state === 'Z') return undefined;
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return { pid, cmdline, startTime: stat.startTime };
  } catch {
    return undefined;
  }
}

/**
 * True when pid is alive and still the very process recorded: the same start time (clock ticks since
 * boot, so a reused pid differs) and the same program. Servers may retitle themselves after start
 * (nginx: "nginx: master process …", redis: "redis-server 127.0.0.1:…"), so the program is checked
 * by its executable's name rather than the full command line.
 */
export function isSameProcess(id: ProcessIdentity): boolean {
  const now = identify(id.pid);
  if (!now || now.startTime !== id.startTime) return false;
  const exe = path.basename(id.cmdline.split(' ')[0] ?? '');
  return now.cmdline === id.cmdline || (exe.length > 0 && now.cmdline.includes(exe));
}

/** Once a process group has no live member left (zombies awaiting their reaping do not count). */
export function waitGroupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  return pollUntil(() => groupMembers(pgid).length === 0, timeoutMs, 25);
}

/** SIGTERM the group, wait up to graceMs, then SIGKILL; resolves once no member is left. */
export async function terminateGroup(pgid: number, graceMs: number, name: string): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  if (await waitGroupGone(pgid, graceMs)) return;
  signalGroup(pgid, 'SIGKILL');
  if (!(await waitGroupGone(pgid, 5_000))) throw new Error(`${name}: process group ${pgid} survived SIGKILL`);
}

export async function killGroup(pgid: number, name: string): Promise<void> {
  if (!signalGroup(pgid, 'SIGKILL')) return;
  if (!(await waitGroupGone(pgid, 5_000))) throw new Error(`${name}: process group ${pgid} survived SIGKILL`);
}

/** The last lines of a log file, for error messages. */
export function logTail(file: string, lines = 15): string {
  try {
    const text = fs.readFileSync(file, 'utf8');
    const tail = text.slice(-4000).trimEnd().split('\n').slice(-lines).join('\n');
    return tail || '(empty log)';
  } catch {
    return '(no log file)';
  }
}

/** This process's open-file limits (Linux /proc/self/limits); null where unlimited or not told. */
export function openFileLimits(): { soft: number | null; hard: number | null } {
  try {
    const line = fs
      .readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const [, soft, hard] = line?.split(/\s{2,}/) ?? [];
    const num = (v: string | undefined) => (v === undefined || v === 'unlimited' ? null : Number(v));
    return { soft: num(soft), hard: num(hard) };
  } catch {
    return { soft: null, hard: null };
  }
}
