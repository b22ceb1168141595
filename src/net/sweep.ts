// Stopping processes found by what they are, not by a pid recorded earlier: `down` sweeps whatever
// still runs in the cluster's namespaces before deleting them (issue 51: `ip netns del` removes a
// namespace's name only, so an nginx the record had lost ran on, unseen, in a namespace that
// `ip netns list` no longer showed).
import path from 'node:path';
import { pollUntil } from '../time.js';
import { fileKey, listProcesses, readStat, type ProcEntry } from './procfs.js';

/** Where `ip netns add` binds each namespace it names. */
export const NETNS_DIR = '/run/netns';

/** How long a swept process gets between SIGTERM and SIGKILL (MariaDB may take this long to shut down). */
export const SWEEP_GRACE_MS = 10_000;

/** A process found by a sweep, and what it was found by. */
export interface SweptProcess {
  pid: number;
  cmdline: string;
  /** Where it was found: `in namespace NAME`, or `running from DIR`. */
  where: string;
}

export interface SweepOptions {
  /** How long SIGTERM gets before SIGKILL. */
  graceMs: number;
  /** How long SIGKILL gets before the sweep fails. */
  killMs?: number;
  /** Sends a signal (tests replace it); by default only to the very process found (same start time). */
  send?: (p: ProcEntry, sig: NodeJS.Signals) => void;
}

/** A signal to `p` if its pid still names the process found (a reused pid has another start time). */
function sendIfSame(p: ProcEntry, sig: NodeJS.Signals): void {
  if (readStat(p.pid)?.startTime !== p.startTime) return;
  try {
    process.kill(p.pid, sig);
  } catch {
    // gone meanwhile
  }
}

/**
 * Stops every process `find` answers, SIGTERM first (a server shuts down cleanly), SIGKILL after
 * graceMs; what it finds later (a child forked meanwhile) gets the same. Resolves with every process
 * it signalled once `find` answers none; throws naming those that outlived SIGKILL.
 */
export async function sweep<T extends ProcEntry>(find: () => T[], opts: SweepOptions): Promise<T[]> {
  const send = opts.send ?? sendIfSame;
  const seen = new Map<number, T>();
  let left: T[] = [];
  const signalNew = (sig: NodeJS.Signals) => {
    left = find();
    for (const p of left.filter((q) => !seen.has(q.pid))) {
      seen.set(p.pid, p);
      send(p, sig);
    }
    return left.length === 0;
  };
  if (signalNew('SIGTERM')) return [];
  if (!(await pollUntil(() => signalNew('SIGTERM'), opts.graceMs, 25))) {
    const killAll = () => {
      left = find();
      for (const p of left) {
        seen.set(p.pid, p);
        send(p, 'SIGKILL');
      }
      return left.length === 0;
    };
    if (!(await pollUntil(killAll, opts.killMs ?? 5_000, 25))) {
      throw new Error(`survived SIGKILL: ${left.map((p) => `pid ${p.pid} (${p.cmdline})`).join(', ')}`);
    }
  }
  return [...seen.values()];
}

export interface ProcRoots {
  proc?: string;
  netnsDir?: string;
}

/** A finder of the processes running in the named namespaces (those that exist), each with its namespace's name. */
export function inNamespaces(names: readonly string[], roots: ProcRoots = {}): () => (ProcEntry & { namespace: string })[] {
  const byKey = new Map<string, string>();
  for (const name of names) {
    const key = fileKey(path.join(roots.netnsDir ?? NETNS_DIR, name));
    if (key !== undefined) byKey.set(key, name);
  }
  return () => {
    if (byKey.size === 0) return [];
    return listProcesses(roots.proc).flatMap((p) => {
      const namespace = byKey.get(p.netns);
      return namespace === undefined ? [] : [{ ...p, namespace }];
    });
  };
}

/** Stops whatever runs in the named namespaces (see sweep); what it stopped, with the namespace of each. */
export async function sweepNamespaces(names: readonly string[], opts: SweepOptions, roots: ProcRoots = {}): Promise<SweptProcess[]> {
  const stopped = await sweep(inNamespaces(names, roots), opts);
  return stopped.map((p) => ({ pid: p.pid, cmdline: p.cmdline, where: `in namespace ${p.namespace}` }));
}
