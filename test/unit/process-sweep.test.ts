// Issue 51, without servers: a server's identity is never taken mid-exec; `down`'s sweeps find a
// namespace's processes by process (a /proc and /run/netns of the test's own), and the cluster's
// servers by their command line, nothing else; and a sweep stops what it finds, SIGTERM then SIGKILL.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isServerCommandLine } from '../../src/cluster/server.js';
import { strayServers } from '../../src/cluster/strays.js';
import { listProcesses, type ProcEntry } from '../../src/net/procfs.js';
import { inNamespaces, sweep } from '../../src/net/sweep.js';
import { removeTree } from '../../src/paths.js';

describe("a server's recorded identity", () => {
  it("is taken once its launchers have exec'd it, never from the empty command line read mid-exec", () => {
    expect(isServerCommandLine('')).toBe(false);
    expect(isServerCommandLine('ip netns exec stocklab-abcdef-nginx /usr/sbin/nginx -p /d/nginx/')).toBe(false);
    expect(isServerCommandLine('setpriv --reuid=postgres /usr/lib/postgresql/15/bin/postgres -D /d')).toBe(false);
    expect(isServerCommandLine('/usr/sbin/nginx -p /d/nginx/ -c /d/nginx/nginx.conf')).toBe(true);
  });
});

describe("finding processes by namespace (a /proc of the test's own)", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-sweep-'));
  afterAll(() => removeTree(root));
  const proc = path.join(root, 'proc');
  const netnsDir = path.join(root, 'netns');
  fs.mkdirSync(netnsDir);
  // A namespace is known by the device and inode of its file; a process's ns/net link leads to one.
  for (const ns of ['stocklab-abcdef-nginx', 'stocklab-abcdef-redis', 'another']) fs.writeFileSync(path.join(netnsDir, ns), '');
  const process_ = (pid: number, opts: { ns?: string; state?: string; pgrp?: number; exe?: string; cmdline?: string }) => {
    const dir = path.join(proc, String(pid));
    fs.mkdirSync(path.join(dir, 'ns'), { recursive: true });
    const fields = [opts.state ?? 'S', '1', String(opts.pgrp ?? pid), ...Array<string>(16).fill('0'), String(1000 + pid)];
    fs.writeFileSync(path.join(dir, 'stat'), `${pid} (comm with) spaces) ${fields.join(' ')} 0 0\n`);
    fs.writeFileSync(path.join(dir, 'cmdline'), `${(opts.cmdline ?? 'x').split(' ').join('\0')}\0`);
    fs.symlinkSync(opts.exe ?? '/usr/bin/x', path.join(dir, 'exe'));
    if (opts.ns) fs.symlinkSync(path.join(netnsDir, opts.ns), path.join(dir, 'ns', 'net'));
  };
  process_(101, { ns: 'stocklab-abcdef-nginx', exe: '/usr/sbin/nginx (deleted)', cmdline: 'nginx: master process /usr/sbin/nginx -p /d/nginx/' });
  process_(102, { ns: 'stocklab-abcdef-nginx', pgrp: 101, exe: '/usr/sbin/nginx', cmdline: 'nginx: worker process' });
  process_(103, { ns: 'stocklab-abcdef-redis', exe: '/usr/bin/redis-server', cmdline: 'redis-server 198.18.0.3:6379' });
  process_(104, { ns: 'another', cmdline: 'not ours' });
  process_(105, { ns: 'stocklab-abcdef-redis', state: 'Z' }); // a zombie holds nothing
  process_(106, {}); // its namespace unreadable

  it('reads each live process: program, group, start time, namespace (zombies left out)', () => {
    const byPid = new Map(listProcesses(proc).map((p) => [p.pid, p]));
    expect([...byPid.keys()].sort()).toEqual([101, 102, 103, 104, 106]);
    expect(byPid.get(101)).toMatchObject({ program: 'nginx', pgrp: 101, startTime: '1101', cmdline: 'nginx: master process /usr/sbin/nginx -p /d/nginx/' });
    expect(byPid.get(102)).toMatchObject({ program: 'nginx', pgrp: 101 });
    expect(byPid.get(106)?.netns).toBe('');
  });

  it("finds every process in the cluster's namespaces, by namespace, and none elsewhere; a namespace already gone finds nothing", () => {
    const find = inNamespaces(['stocklab-abcdef-nginx', 'stocklab-abcdef-redis', 'stocklab-abcdef-gone'], { proc, netnsDir });
    expect(
      find()
        .map((p) => [p.pid, p.namespace])
        .sort(),
    ).toEqual([
      [101, 'stocklab-abcdef-nginx'],
      [102, 'stocklab-abcdef-nginx'],
      [103, 'stocklab-abcdef-redis'],
    ]);
    expect(inNamespaces(['stocklab-abcdef-gone'], { proc, netnsDir })()).toEqual([]);
  });
});

const entry = (pid: number, cmdline: string, program: string, pgrp = pid): ProcEntry => ({
  pid,
  pgrp,
  cmdline,
  program,
  state: 'S',
  startTime: String(pid),
  netns: '',
});

describe("finding the cluster's servers by their command line", () => {
  const dir = '/srv/lab/.stocklab';
  const master = entry(10, `nginx: master process /usr/sbin/nginx -p ${dir}/nginx/ -c ${dir}/nginx/nginx.conf`, 'nginx');
  const workers = [entry(11, 'nginx: worker process', 'nginx', 10), entry(12, 'nginx: worker process', 'nginx', 10)];
  const mariadb = entry(20, `/usr/sbin/mariadbd --no-defaults --datadir=${dir}/mysql --port=3306`, 'mariadbd');
  const others = [
    entry(30, `tail -f ${dir}/logs/nginx.log`, 'tail'), // not a server
    entry(31, `vim ${dir}/nginx/nginx.conf`, 'vim'),
    entry(32, `nginx: master process /usr/sbin/nginx -p ${dir}2/nginx/`, 'nginx'), // another cluster's dir
    entry(33, 'nginx: worker process', 'nginx', 32),
    entry(34, '/usr/sbin/nginx -g daemon off;', 'nginx'), // the machine's own
    entry(36, `/usr/sbin/mariadbd --datadir=${dir}/sub/mysql`, 'mariadbd'), // a cluster in a folder of the dir
    entry(35, 'redis-server 127.0.0.1:6379', 'redis-server'),
  ];

  it("finds the servers naming the dir and their groups' members, and nothing else", () => {
    const find = strayServers(`${dir}/`, () => [master, ...workers, mariadb, ...others]);
    expect(find().map((p) => p.pid)).toEqual([10, 11, 12, 20]);
  });

  it("still finds a group's members once their leader is gone", () => {
    let procs = [master, ...workers];
    const find = strayServers(dir, () => procs);
    expect(find().map((p) => p.pid)).toEqual([10, 11, 12]);
    procs = workers;
    expect(find().map((p) => p.pid)).toEqual([11, 12]);
  });
});

describe('a sweep', () => {
  /** Processes that exit on the signals named; `spawns` appear once the first signal is sent. */
  function world(procs: { p: ProcEntry; diesOn: NodeJS.Signals[] }[], spawns: { p: ProcEntry; diesOn: NodeJS.Signals[] }[] = []) {
    let alive = [...procs];
    const sent: string[] = [];
    return {
      sent,
      find: () => alive.map((a) => a.p),
      send: (p: ProcEntry, sig: NodeJS.Signals) => {
        sent.push(`${sig} ${p.pid}`);
        alive = [...alive, ...spawns.splice(0)].filter((a) => a.p.pid !== p.pid || !a.diesOn.includes(sig));
      },
    };
  }

  it('signals nothing when it finds nothing', async () => {
    const w = world([]);
    expect(await sweep(w.find, { graceMs: 50, send: w.send })).toEqual([]);
    expect(w.sent).toEqual([]);
  });

  it('stops with SIGTERM what SIGTERM stops, SIGKILLs the rest after the grace, and signals a process forked meanwhile too', async () => {
    const w = world(
      [
        { p: entry(1, 'a', 'nginx'), diesOn: ['SIGTERM'] },
        { p: entry(2, 'b', 'java'), diesOn: ['SIGKILL'] },
      ],
      [{ p: entry(3, 'c', 'postgres'), diesOn: ['SIGTERM'] }],
    );
    const stopped = await sweep(w.find, { graceMs: 100, send: w.send });
    expect(stopped.map((p) => p.pid).sort()).toEqual([1, 2, 3]);
    expect(w.sent.filter((s) => s.startsWith('SIGTERM')).sort()).toEqual(['SIGTERM 1', 'SIGTERM 2', 'SIGTERM 3']);
    expect([...new Set(w.sent.filter((s) => s.startsWith('SIGKILL')))]).toEqual(['SIGKILL 2']);
  });

  it('fails, naming it, when a process outlives SIGKILL', async () => {
    const w = world([{ p: entry(7, 'stuck in D', 'mariadbd'), diesOn: [] }]);
    await expect(sweep(w.find, { graceMs: 30, killMs: 60, send: w.send })).rejects.toThrow(/pid 7 \(stuck in D\)/);
  });
});
