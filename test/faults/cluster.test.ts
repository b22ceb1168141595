// The native cluster itself: nginx config rendering, a private cluster's servers all answering,
// crash-and-restart of an instance, a clean stop, and the CLI's up/down leaving nothing behind.
import { etcdHealthy } from '../../src/cluster/etcd.js';
import { postgresPing } from '../../src/cluster/postgres.js';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { freeClusterConfig } from '../../src/cluster/cluster.js';
import { NGINX_TEMPLATE, renderNginxConf } from '../../src/cluster/nginx.js';
import { ensureBinaries } from '../../src/cluster/packages.js';
import { isPortFree } from '../../src/cluster/ports.js';
import { waitGroupGone } from '../../src/cluster/processes.js';
import { zkServing } from '../../src/cluster/probes.js';
import { readState } from '../../src/cluster/state.js';
import { REPO_ROOT, removeTree } from '../../src/paths.js';
import { withOwnCluster } from '../support/cluster.js';

const run = promisify(execFile);
const template = fs.readFileSync(NGINX_TEMPLATE, 'utf8');

function listens(conf: string): string[] {
  return [...conf.matchAll(/^\s*listen\s+([^\s;]+)[^;]*;/gm)].map((m) => m[1] ?? '');
}
function upstreamServers(conf: string): string[] {
  const block = /upstream\s+\S+\s*\{[^}]*\}/.exec(conf)?.[0] ?? '';
  return [...block.matchAll(/^\s*server\s+([^;]+);/gm)].map((m) => m[1] ?? '');
}

const groupGone = (pgid: number) => waitGroupGone(pgid, 5_000);

describe('nginx config', () => {
  it('the committed config is the default cluster: listen 8080, upstream 8000/8100/8200', () => {
    expect(listens(template)).toEqual(['127.0.0.1:8080']);
    expect(upstreamServers(template)).toEqual(['127.0.0.1:8000', '127.0.0.1:8100', '127.0.0.1:8200']);
  });

  it('renders exactly the given listen port and upstreams, keeping the rest', () => {
    const conf = renderNginxConf(template, 23456, [21001, 21002]);
    expect(listens(conf)).toEqual(['127.0.0.1:23456']);
    expect(upstreamServers(conf)).toEqual(['127.0.0.1:21001', '127.0.0.1:21002']);
    expect(conf).toContain('keepalive 512;');
    expect(conf).toMatch(/limit_conn stocklab_inflight \d+;/);
    expect(conf).toContain('proxy_set_header Connection "";');
    expect(renderNginxConf(template, 8080, [8000, 8100, 8200])).toBe(template);
  });

  it('the rendered config passes nginx -t', async () => {
    const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-nginx-'));
    try {
      for (const d of ['logs', 'temp']) fs.mkdirSync(path.join(prefix, d));
      const conf = path.join(prefix, 'nginx.conf');
      fs.writeFileSync(conf, renderNginxConf(template, 23457, [21003]));
      const { stderr } = await run(ensureBinaries().nginx, ['-t', '-p', prefix + '/', '-c', conf, '-e', 'stderr']);
      expect(stderr).toContain('test is successful');
    } finally {
      removeTree(prefix);
    }
  });
});

describe('a private cluster', () => {
  const own = withOwnCluster({ instances: 3 });

  it('every server answers', async () => {
    const { info } = own.current;
    const conn = await mysql.createConnection({ ...info.mysql });
    try {
      const [rows] = await conn.query('SELECT DATABASE() AS db, 1 + 1 AS two');
      expect(rows).toEqual([{ db: info.mysql.database, two: 2 }]);
    } finally {
      await conn.end();
    }

    for (const url of [info.redis, ...info.redlock]) {
      const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      expect(await redis.ping()).toBe('PONG');
      redis.disconnect();
    }
    expect(info.redlock).toHaveLength(5);

    expect(await zkServing(Number(info.zookeeper.split(':')[1]))).toBe(true);
    expect(info.etcd && (await etcdHealthy(info.etcd))).toBe(true);
    expect(info.postgres && (await postgresPing(info.postgres))).toBe(true);

    // round robin: 6 requests through nginx reach each of the 3 instances
    const seen = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${info.nginx}/health`);
      expect(res.status).toBe(200);
      seen.add(((await res.json()) as { instance: string }).instance);
    }
    expect([...seen].sort()).toEqual(info.instances.map((u) => `app-${new URL(u).port}`).sort());
  });

  it('an instance killed like a crash comes back with start()', async () => {
    const app = own.current.servers.instances[0]!;
    const before = app.pid!;
    await app.kill();
    expect(app.pid).toBeUndefined();
    expect(await groupGone(before)).toBe(true);
    await expect(fetch(`http://127.0.0.1:${app.port}/health`)).rejects.toThrow();

    await app.start();
    expect(app.pid).toBeGreaterThan(0);
    expect(app.pid).not.toBe(before);
    expect((await fetch(`http://127.0.0.1:${app.port}/health`)).status).toBe(200);
  });

  it('stop() leaves no process behind and frees every port', async () => {
    const c = own.current;
    const all = [c.servers.mysql, c.servers.redis, ...c.servers.redlock, c.servers.zookeeper, c.servers.nginx, ...c.servers.instances];
    const pids = all.map((s) => s.pid);
    expect(pids.every((p) => typeof p === 'number')).toBe(true);

    await c.stop();

    for (const s of all) expect(s.pid, s.name).toBeUndefined();
    for (const pid of pids) expect(await groupGone(pid!), `process group ${pid}`).toBe(true);
    for (const s of all) expect(await isPortFree(s.port), `${s.name} port ${s.port}`).toBe(true);
  });
});

describe('npm run cluster -- up|down', () => {
  it('starts a detached cluster with a Redis password, records it privately, and down stops exactly those processes', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-cli-'));
    const cfg = await freeClusterConfig(dir, 1);
    const p = cfg.ports;
    const env = {
      ...process.env,
      STOCKLAB_DIR: dir,
      NGINX_PORT: String(p.nginx),
      INSTANCE_PORTS: p.instances.join(','),
      MYSQL_PORT: String(p.mysql),
      REDIS_PORT: String(p.redis),
      REDLOCK_PORTS: p.redlock.join(','),
      ZK_PORT: String(p.zookeeper),
      // every server on the free ports: a default one (PostgreSQL's 15432) may be another cluster's
      ETCD_PORT: String(p.etcd),
      ETCD_PEER_PORT: String(p.etcdPeer),
      PG_PORT: String(p.postgres),
      LOG_LEVEL: 'warn',
      REDIS_PASSWORD: 'sécret "pw"',
    };
    const cli = (cmd: string) => run(process.execPath, ['--import', 'tsx', 'src/cluster/cli.ts', cmd], { cwd: REPO_ROOT, env });
    let pids: number[] = [];
    try {
      const up = await cli('up');
      expect(up.stdout).toContain(`http://127.0.0.1:${p.nginx}`);
      const state = readState(dir)!;
      expect(state.complete).toBe(true);
      expect(state.servers.map((s) => s.name).sort()).toEqual(
        ['mysql', 'redis', 'zookeeper', 'etcd', 'postgres', 'nginx', `app-${p.instances[0]}`, ...p.redlock.map((_, i) => `redlock-${i}`)].sort(),
      );
      pids = state.servers.map((s) => s.pid);
      // Every check passes: the instances reach Redis and the RedLock masters with the password.
      const health = await fetch(`http://127.0.0.1:${p.nginx}/health`);
      expect([health.status, ((await health.json()) as { ok: boolean }).ok]).toEqual([200, true]);
      const anonymous = new Redis(p.redis, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, enableReadyCheck: false });
      anonymous.on('error', () => undefined);
      await anonymous.connect();
      await expect(anonymous.ping()).rejects.toThrow(/NOAUTH/);
      anonymous.disconnect();
      const withPassword = new Redis(state.redis);
      expect(await withPassword.ping()).toBe('PONG');
      withPassword.disconnect();
      // The record holds the passwords: only its owner may read it, or list the dir.
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
      expect(fs.statSync(path.join(dir, 'cluster.json')).mode & 0o777).toBe(0o600);

      // idempotent: a second up sees the healthy cluster and changes nothing
      const again = await cli('up');
      // progress on stderr, the addresses (results) on stdout
      expect(again.stderr).toContain('already up');
      expect(again.stdout).toContain(`http://127.0.0.1:${p.nginx}`);
      expect(readState(dir)!.servers.map((s) => s.pid)).toEqual(pids);
      expect((await cli('status')).stdout).not.toMatch(/\bdown\b/);

      const down = await cli('down');
      expect(down.stderr).toContain('cluster down');
      expect(readState(dir)).toBeUndefined();
      for (const pid of pids) expect(await groupGone(pid), `process group ${pid}`).toBe(true);
      for (const port of [p.nginx, p.mysql, p.redis, p.zookeeper, p.etcd, p.postgres, ...p.redlock, ...p.instances]) {
        expect(await isPortFree(port), `port ${port}`).toBe(true);
      }
      await expect(cli('status')).rejects.toMatchObject({ code: 3 });
    } finally {
      // if an assertion failed half-way, still take the detached servers down
      if (readState(dir)) await cli('down').catch(() => undefined);
      removeTree(dir);
    }
  });
});
