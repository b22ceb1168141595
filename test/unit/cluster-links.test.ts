// The cluster's delayed links, planned without starting anything (src/cluster/links.ts): which
// servers get a forwarder, where the clients are pointed, what the record shows, and, with one
// forwarder process, a retiming by file and SIGHUP confirmed from its log.
import fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clusterInfo, ensembleMember, etcdCluster, freeClusterConfig, inStopOrder } from '../../src/cluster/cluster.js';
import { linkSpecs, linkTargets, retimedRecord, retimeLinks, selectLinks, serverPorts, withLinks, writeRttFile } from '../../src/cluster/links.js';
import { renderNginxConf } from '../../src/cluster/nginx.js';
import { ManagedServer } from '../../src/cluster/server.js';
import { zooCfg } from '../../src/cluster/zookeeper.js';
import { loadServiceConfig } from '../../src/config.js';
import { loadClusterConfig, serviceEnvFor } from '../../src/cluster/layout.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('delayed links', () => {
  it('at rtt 0 (the default) plans no forwarder and changes no address', async () => {
    const cfg = await withLinks(loadClusterConfig({}));
    expect(cfg.rttMs).toBe(0);
    expect(cfg.links).toBeUndefined();
    expect(linkSpecs(cfg, '/tmp/x')).toEqual([]);
    const info = clusterInfo(cfg);
    expect(info.links).toBeUndefined();
    expect(info.rttMs).toBe(0);
    expect(info.mysql.port).toBe(13306);
    // a config that had links and is asked for 0 loses them
    expect((await withLinks({ ...cfg, links: { mysql: 20001 } })).links).toBeUndefined();
  });

  it('puts a forwarder in front of every server but nginx, on ports none of the servers use, and points the clients at them', async () => {
    const cfg = await withLinks(loadClusterConfig({ CLUSTER_RTT_MS: '2' }));
    const keys = linkTargets(cfg).map((t) => t.key);
    expect(keys).toEqual([
      'mysql',
      'redis',
      'redlock-0',
      'redlock-1',
      'redlock-2',
      'redlock-3',
      'redlock-4',
      'zookeeper',
      'etcd',
      'postgres',
      'app-8000',
      'app-8100',
      'app-8200',
    ]);
    const ports = Object.values(cfg.links ?? {});
    expect(new Set(ports).size).toBe(keys.length);
    const serverPorts = [cfg.ports.nginx, ...linkTargets(cfg).map((t) => t.port)];
    expect(ports.filter((p) => serverPorts.includes(p))).toEqual([]);
    // a config that has its links keeps them (a second `up` finds the same cluster)
    expect(await withLinks(cfg)).toBe(cfg);

    const links = cfg.links ?? {};
    const service = loadServiceConfig(serviceEnvFor(cfg, 8000));
    expect(service.mysql).toMatchObject({ host: '127.0.0.1', port: links.mysql });
    expect(service.redis.url).toBe(`redis://127.0.0.1:${links.redis}`);
    expect(service.redlock.urls).toEqual([0, 1, 2, 3, 4].map((i) => `redis://127.0.0.1:${links[`redlock-${i}`]}`));
    expect(service.zookeeper.connect).toBe(`127.0.0.1:${links.zookeeper}`);
    expect(service.etcd.endpoints).toEqual([`http://127.0.0.1:${links.etcd}`]);
    expect(service.postgres).toMatchObject({ host: '127.0.0.1', port: links.postgres });

    const info = clusterInfo(cfg);
    expect(info.rttMs).toBe(2);
    expect(info.mysql.port).toBe(links.mysql);
    expect(info.instances).toEqual([8000, 8100, 8200].map((p) => `http://127.0.0.1:${links[`app-${p}`]}`));
    expect(info.nginx).toBe('http://127.0.0.1:8080');
    expect(info.links?.find((l) => l.name === 'mysql')).toEqual({ name: 'mysql', server: '127.0.0.1:13306', forwarder: `127.0.0.1:${links.mysql}` });

    const specs = linkSpecs(cfg, '/tmp/x');
    expect(specs.map((s) => s.name)).toEqual(keys.map((k) => `link-${k}`));
    const mysqlLink = specs[0]?.launch();
    expect(mysqlLink?.args).toEqual(
      expect.arrayContaining(['--listen', `127.0.0.1:${links.mysql}`, '--target', '127.0.0.1:13306', '--rtt-file', '/tmp/x/rtt/link-mysql']),
    );
    // the forwarders stop after every server, so a draining instance still reaches its servers
    expect(inStopOrder([{ name: 'link-mysql' }, { name: 'mysql' }, { name: 'app-8000' }]).map((s) => s.name)).toEqual(['app-8000', 'mysql', 'link-mysql']);
  });

  it('counts every port the servers bind as taken, those no forwarder fronts (etcd peer port) included', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'links-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    // freeClusterConfig draws 12 ports plus one per instance, and 16 more when replicated
    const single = await freeClusterConfig(dir, 3);
    expect(serverPorts(single).size).toBe(15);
    expect(serverPorts(single).has(single.ports.etcdPeer)).toBe(true);
    const replicated = await freeClusterConfig(dir, 3, 'replicated');
    expect(serverPorts(replicated).size).toBe(31);
  });

  it('replicated: the replica, the Sentinels and each ensemble node quorum ports are linked; a node reaches the others through their forwarders', async () => {
    const cfg = await withLinks(loadClusterConfig({ CLUSTER_RTT_MS: '0.5', TOPOLOGY: 'replicated' }));
    const keys = linkTargets(cfg).map((t) => t.key);
    expect(keys).toEqual(
      expect.arrayContaining(['redis-replica', 'sentinel-0', 'sentinel-2', 'zookeeper-2', 'zookeeper-peer', 'zookeeper-1-election', 'zookeeper-2-peer']),
    );
    expect(keys).toHaveLength(2 + 1 + 3 + 5 + 3 + 6 + 3 + 3 + 1 + 3);
    const links = cfg.links ?? {};
    const service = loadServiceConfig(serviceEnvFor(cfg, 8000));
    expect(service.redis.sentinel?.sentinels).toEqual([0, 1, 2].map((i) => ({ host: '127.0.0.1', port: links[`sentinel-${i}`] })));
    // etcd: three members, each reached by clients and by its peers through its forwarders
    expect(keys).toEqual(expect.arrayContaining(['etcd', 'etcd-1', 'etcd-2', 'etcd-peer', 'etcd-1-peer', 'etcd-2-peer']));
    expect(service.etcd.endpoints).toEqual(['etcd', 'etcd-1', 'etcd-2'].map((n) => `http://127.0.0.1:${links[n]}`));
    expect(etcdCluster(cfg).members).toEqual(['etcd', 'etcd-1', 'etcd-2'].map((name) => ({ name, peerUrl: `http://127.0.0.1:${links[`${name}-peer`]}` })));

    const lines = zooCfg(12182, '/data', ensembleMember(cfg, 1))
      .split('\n')
      .filter((l) => l.startsWith('server.'));
    expect(lines).toEqual([
      `server.1=127.0.0.1:${links['zookeeper-peer']}:${links['zookeeper-election']}`,
      'server.2=127.0.0.1:12889:13889', // its own: the ports it listens on
      `server.3=127.0.0.1:${links['zookeeper-2-peer']}:${links['zookeeper-2-election']}`,
    ]);
  });

  it('retimes every link, or only those named (one RedLock master far away), and records which', () => {
    const forwarders = [{ name: 'link-mysql' }, { name: 'link-redlock-4' }, { name: 'link-zookeeper-1-peer' }];
    expect(selectLinks(forwarders, undefined)).toEqual(forwarders);
    expect(selectLinks(forwarders, ['redlock-4'])).toEqual([{ name: 'link-redlock-4' }]);
    expect(() => selectLinks(forwarders, ['redlock-9'])).toThrow('no link in front of redlock-9 (links: mysql, redlock-4, zookeeper-1-peer)');
    const record = {
      rttMs: 2,
      links: [
        { name: 'mysql', server: 's', forwarder: 'f' },
        { name: 'redlock-4', server: 's', forwarder: 'f' },
      ],
    };
    const far = retimedRecord(record, 20, ['redlock-4']);
    expect(far).toEqual({
      rttMs: 2,
      links: [
        { name: 'mysql', server: 's', forwarder: 'f' },
        { name: 'redlock-4', server: 's', forwarder: 'f', rttMs: 20 },
      ],
    });
    // the cluster's round trip again: every link's, none apart
    expect(retimedRecord({ ...record, ...far }, 0.5, undefined)).toEqual({ rttMs: 0.5, links: record.links });
  });

  it("renders nginx with its upstreams at the instances' forwarders, on loopback", () => {
    const conf = renderNginxConf(fs.readFileSync('nginx/nginx.conf', 'utf8'), 8080, [8000, 8100], {
      addresses: { listen: '127.0.0.1', upstream: (p) => `127.0.0.1:${p + 20000}` },
    });
    expect(conf).toMatch(/server 127\.0\.0\.1:28000;\s+server 127\.0\.0\.1:28100;/);
    expect(conf.match(/^\s*127\.0\.0\.1\s+1;$/gm)).toHaveLength(1);
  });

  it('retimes a running forwarder by its file and SIGHUP, confirmed from its log; a stopped one is named', { timeout: 30_000 }, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'links-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    fs.mkdirSync(path.join(dir, 'logs'));
    const cfg = await withLinks({ ...(await freeClusterConfig(dir, 1)), rttMs: 2 });
    const spec = linkSpecs(cfg, dir)[0];
    if (!spec) throw new Error('no link planned');
    writeRttFile(dir, spec.name, 2);
    const link = new ManagedServer(spec);
    await link.start();
    cleanups.push(() => link.stop());
    await retimeLinks(dir, 0.5, [link]);
    expect(fs.readFileSync(path.join(dir, 'rtt', spec.name), 'utf8').trim()).toBe('0.5');
    await expect(retimeLinks(dir, 1, [{ name: 'link-x', pid: undefined }])).rejects.toThrow(/link-x is not running/);
  });
});
