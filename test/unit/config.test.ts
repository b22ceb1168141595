import { describe, expect, it } from 'vitest';
import { loadServiceConfig } from '../../src/config.js';
import { ConfigError, freePortRange } from '../../src/env.js';
import { loadClusterConfig, serviceEnvFor } from '../../src/cluster/layout.js';
import { freePorts } from '../../src/cluster/ports.js';

describe('configuration', () => {
  it('has defaults that match the native cluster', () => {
    const service = loadServiceConfig({});
    const cluster = loadClusterConfig({});
    expect(service.mysql.port).toBe(cluster.ports.mysql);
    expect(service.redis.url).toBe(`redis://127.0.0.1:${cluster.ports.redis}`);
    expect(service.redlock.urls).toEqual(cluster.ports.redlock.map((p) => `redis://127.0.0.1:${p}`));
    expect(service.zookeeper.connect).toBe(`127.0.0.1:${cluster.ports.zookeeper}`);
    expect(cluster.ports.instances).toEqual([8000, 8100, 8200]);
    expect(cluster.ports.nginx).toBe(8080);
  });

  it('gives an instance of a cluster exactly the addresses of that cluster', () => {
    const cluster = loadClusterConfig({ MYSQL_PORT: '4000', REDIS_PORT: '4001', REDLOCK_PORTS: '4002,4003', ZK_PORT: '4004' });
    const service = loadServiceConfig(serviceEnvFor(cluster, 9000));
    expect(service).toMatchObject({
      port: 9000,
      instanceId: 'app-9000',
      mysql: { port: 4000 },
      redis: { url: 'redis://127.0.0.1:4001' },
      redlock: { urls: ['redis://127.0.0.1:4002', 'redis://127.0.0.1:4003'] },
      zookeeper: { connect: '127.0.0.1:4004' },
    });
  });

  it('points an instance of the replicated topology at its Sentinels and at every ensemble node', () => {
    const cluster = loadClusterConfig({
      TOPOLOGY: 'replicated',
      ZK_PORT: '4004',
      ZK_ENSEMBLE_PORTS: '4005,4006',
      SENTINEL_PORTS: '4010,4011,4012',
      REDIS_PASSWORD: 'pw',
    });
    expect(loadClusterConfig({}).replicated).toBeUndefined();
    const service = loadServiceConfig(serviceEnvFor(cluster, 9000));
    expect(service.zookeeper.connect).toBe('127.0.0.1:4004,127.0.0.1:4005,127.0.0.1:4006');
    expect(service.redis.sentinel).toEqual({
      masterName: 'stocklab',
      sentinels: [4010, 4011, 4012].map((port) => ({ host: '127.0.0.1', port })),
    });
    expect(new URL(service.redis.url).password).toBe('pw');
    expect(() => loadClusterConfig({ TOPOLOGY: 'ring' })).toThrow(/TOPOLOGY/);
    expect(() => loadClusterConfig({ SENTINEL_PORTS: '4010,4011' })).toThrow(/SENTINEL_PORTS/);
    expect(() => loadServiceConfig({ REDIS_SENTINELS: 'localhost' })).toThrow(/REDIS_SENTINELS/);
  });

  it('rejects a bad variable by name and treats an empty one as unset', () => {
    expect(() => loadServiceConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadServiceConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadServiceConfig({ REDLOCK_URLS: 'not a url' })).toThrow(/REDLOCK_URLS/);
    expect(loadServiceConfig({ PORT: '' }).port).toBe(8000);
  });
});

describe('FREE_PORTS, where free loopback ports are drawn from', () => {
  it('defaults to 20000-32000, below the ephemeral range; a half given to one of two runs side by side is kept to', async () => {
    expect(freePortRange({})).toEqual({ min: 20_000, max: 32_000 });
    expect(freePortRange({ FREE_PORTS: '26000-32000' })).toEqual({ min: 26_000, max: 32_000 });
    const ports = await freePorts(50, freePortRange({ FREE_PORTS: '26000-27000' }));
    expect(ports.every((p) => p >= 26_000 && p < 27_000)).toBe(true);
  });

  it('refuses a range that is no range, or too narrow to draw from', () => {
    expect(() => freePortRange({ FREE_PORTS: '26000' })).toThrow(/FREE_PORTS/);
    expect(() => freePortRange({ FREE_PORTS: '26000-26100' })).toThrow(/FREE_PORTS/);
    expect(() => freePortRange({ FREE_PORTS: '80-5000' })).toThrow(/FREE_PORTS/);
  });
});
