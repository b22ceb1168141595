// Processes as Linux's /proc shows them: what each one is and where it runs (its network
// namespace), read by process rather than through a pid file or a pid recorded earlier.
import fs from 'node:fs';
import path from 'node:path';

export const PROC = '/proc';

export interface ProcStat {
  /** One letter: 'R', 'S', 'T' (stopped), 'Z' (zombie)… */
  state: string;
  pgrp: number;
  /** Clock ticks since boot: with the pid, it names one process (a reused pid has another). */
  startTime: string;
}

/** One live process. */
export interface ProcEntry extends ProcStat {
  pid: number;
  /** Its arguments joined by spaces (a server that retitles itself shows its title). */
  cmdline: string;
  /** The basename of its executable; '' when unreadable. */
  program: string;
  /** Its network namespace as `dev:inode` (see fileKey); '' when unreadable. */
  netns: string;
}

/** /proc/PID/stat's state, process group and start time; undefined once the process is gone. */
export function readStat(pid: number, root = PROC): ProcStat | undefined {
  try {
    const raw = fs.readFileSync(path.join(root, String(pid), 'stat'), 'utf8');
    // comm may contain spaces and parentheses: fields start after the last ')'
    const rest = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    // rest[0] = state (field 3), rest[2] = pgrp (field 5), rest[19] = starttime (field 22)
    return { state: rest[0] ?? '?', pgrp: Number(rest[2]), startTime: rest[19] ?? '' };
  } catch {
    return undefined;
  }
}

/** `dev:inode` of a file, following links: a namespace's identity, whether read from its name (/run/netns/NAME) or from a process (/proc/PID/ns/net). */
export function fileKey(file: string): string | undefined {
  try {
    const st = fs.statSync(file);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

function readOr(read: () => string, fallback: string): string {
  try {
    return read();
  } catch {
    return fallback;
  }
}

/** Every live process but this one; zombies, which hold nothing, and processes gone while read are left out. */
export function listProcesses(root = PROC): ProcEntry[] {
  const out: ProcEntry[] = [];
  for (const entry of fs.readdirSync(root)) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const stat = readStat(pid, root);
    if (!stat || stat.state === 'Z' || stat.state === 'X') continue;
    const at = (name: string) => path.join(root, entry, name);
    out.push({
      pid,
      ...stat,
      cmdline: readOr(() => fs.readFileSync(at('cmdline'), 'utf8').split('\0').filter(Boolean).join(' '), ''),
      // ' (deleted)': the executable was replaced on disk (a package upgrade) while it ran
      program: readOr(() => path.basename(fs.readlinkSync(at('exe'))).replace(/ \(deleted\)$/, ''), ''),
      netns: fileKey(at(path.join('ns', 'net'))) ?? '',
    });
  }
  return out;
}
