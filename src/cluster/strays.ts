// The cluster's servers found by process, wherever they run (loopback, or a namespace already
// deleted): each of these names its own files in the cluster's dir on its command line (nginx
// -p DIR/nginx/, mariadbd --datadir=DIR/mysql, postgres -D, etcd --data-dir, ZooKeeper's config),
// so one its record lost (issue 51) is found all the same. Only a server program counts, so a
// `tail -f DIR/logs/…` or an editor is never taken for one, and another cluster's dir never matches.
import { listProcesses, type ProcEntry } from '../net/procfs.js';
import { sweep, type SweepOptions, type SweptProcess } from '../net/sweep.js';

/** The executables of the servers that name the cluster's dir (packages.ts finds them). */
const SERVER_PROGRAMS = new Set(['nginx', 'mariadbd', 'mysqld', 'postgres', 'etcd', 'java']);
/** Their folders in the dir, as their command lines name them (so a cluster in a folder of the dir is another's). */
const SERVER_HOMES = ['nginx', 'mysql', 'postgres', 'etcd', 'zookeeper'];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A finder of the servers running from `dir` (an absolute path), and of the processes in their
 * groups (nginx's workers; every server leads a group of its own, and PostgreSQL's children, which
 * lead their own, end with their postmaster). A group is remembered once seen, so its members are
 * still found after their leader has gone.
 */
export function strayServers(dir: string, list: () => ProcEntry[] = listProcesses): () => ProcEntry[] {
  const names = new RegExp(`(^|[\\s=])${escapeRegExp(dir.replace(/\/+$/, ''))}/(${SERVER_HOMES.join('|')})(/|\\s|$)`);
  const groups = new Set<number>();
  return () => {
    const procs = list().filter((p) => SERVER_PROGRAMS.has(p.program));
    for (const p of procs) if (p.pid === p.pgrp && names.test(p.cmdline)) groups.add(p.pgrp);
    return procs.filter((p) => groups.has(p.pgrp) || names.test(p.cmdline));
  };
}

/** Stops the servers still running from `dir` (see sweep); what it stopped. */
export async function sweepStrayServers(dir: string, opts: SweepOptions, list?: () => ProcEntry[]): Promise<SweptProcess[]> {
  const stopped = await sweep(strayServers(dir, list), opts);
  return stopped.map((p) => ({ pid: p.pid, cmdline: p.cmdline, where: `running from ${dir}` }));
}
