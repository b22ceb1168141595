// docker-compose.yml checked offline (no Docker engine here): it parses as a compose file, and its
// services, ports, environment and nginx upstreams agree with each other and with the native
// cluster's defaults (src/config.ts).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLiveConfig, loadServiceConfig } from '../../src/config.js';
import { loadClusterConfig, SENTINEL_MASTER_NAME } from '../../src/cluster/layout.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const COMPOSE = path.join(ROOT, 'docker-compose.yml');
const REPLICATED = path.join(ROOT, 'docker-compose.replicated.yml');

interface Service {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  environment?: Record<string, string | number | null>;
  ports?: (string | { host_ip?: string; published?: number | string; target?: number })[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string };
  volumes?: (string | { source: string; target: string })[];
  profiles?: string[];
  networks?: Record<string, { ipv4_address?: string } | null>;
}
interface Compose {
  services: Record<string, Service>;
  networks?: Record<string, { ipam?: { config?: { subnet?: string; ip_range?: string }[] } }>;
}

function which(cmd: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const dockerCompose = which('docker-compose');

/** A Python with PyYAML: Debian's docker-compose is written in one, so it is there whenever compose is. */
function pythonWithYaml(): string | undefined {
  const shebang =
    dockerCompose &&
    fs
      .readFileSync(dockerCompose, 'utf8')
      .split('\n')[0]
      ?.replace(/^#!\s*/, '');
  for (const py of [shebang, 'python3']) {
    if (!py) continue;
    try {
      execFileSync(py, ['-c', 'import yaml'], { stdio: 'ignore' });
      return py;
    } catch {
      // try the next one
    }
  }
  return undefined;
}

const python = pythonWithYaml();

// Without docker-compose (or a Python with PyYAML) the checks that need it are skipped, except in CI
// (CI=true): there they run and fail naming what is missing, since a silent skip would hide a check
// that no longer runs anywhere.
const IN_CI = process.env.CI === 'true';
const canRun = (...tools: (string | undefined)[]) => IN_CI || tools.every((t) => t !== undefined);

function need(tool: string | undefined, what: string): string {
  if (tool === undefined)
    throw new Error(`${what} is not installed, and CI=true runs the docker-compose checks that need it (Debian: apt-get install docker-compose)`);
  return tool;
}
const toJson = 'import sys, json, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))';

/**
 * The files as docker-compose resolves them (anchors, merges and overrides applied) when it is
 * installed, else the first as parsed (an override cannot be read alone: callers need compose then).
 */
function loadCompose(files: string[] = [COMPOSE]): Compose {
  const py = need(python, 'a Python with PyYAML');
  const yaml =
    dockerCompose || files.length > 1
      ? execFileSync(need(dockerCompose, 'docker-compose'), [...files.flatMap((f) => ['-f', f]), 'config'], { cwd: ROOT, encoding: 'utf8' })
      : fs.readFileSync(files[0] ?? COMPOSE, 'utf8');
  return JSON.parse(execFileSync(py, ['-c', toJson], { input: yaml, encoding: 'utf8' })) as Compose;
}

interface Published {
  hostIp: string;
  host: number;
  container: number;
}

function published(s: Service): Published[] {
  return (s.ports ?? []).map((p) => {
    if (typeof p === 'string') {
      const m = /^(?:([\d.]+):)?(\d+):(\d+)(?:\/\w+)?$/.exec(p);
      if (!m) throw new Error(`unexpected port syntax ${p}`);
      return { hostIp: m[1] ?? '', host: Number(m[2]), container: Number(m[3]) };
    }
    return { hostIp: p.host_ip ?? '', host: Number(p.published), container: Number(p.target) };
  });
}

const env = (s: Service): Record<string, string> => Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, v === null ? '' : String(v)]));

const APPS = ['app1', 'app2', 'app3'];
const native = loadClusterConfig({});

describe('docker-compose.yml', () => {
  it.runIf(canRun(dockerCompose))(
    'is a valid compose file (docker-compose config -q)',
    () => {
      execFileSync(need(dockerCompose, 'docker-compose'), ['-f', COMPOSE, 'config', '-q'], { cwd: ROOT, stdio: 'pipe' });
    },
    30_000,
  );

  describe.runIf(canRun(python))('agrees with itself and with the native cluster', () => {
    let compose: Compose = { services: {} };
    beforeAll(() => {
      compose = loadCompose();
    }, 60_000); // docker-compose v1 (Python) takes seconds to start, more on a busy 2-core machine
    const svc = (name: string): Service => {
      const s = compose.services[name];
      if (!s) throw new Error(`no service ${name}`);
      return s;
    };

    it('has every server the lab needs, and the optional ones only in their profiles', () => {
      const names = Object.entries(compose.services)
        .filter(([, s]) => !s.profiles)
        .map(([n]) => n)
        .sort();
      expect(names).toEqual(
        [
          'app1',
          'app2',
          'app3',
          'migrate',
          'mysql',
          'nginx',
          'redis',
          'redlock1',
          'redlock2',
          'redlock3',
          'redlock4',
          'redlock5',
          'zookeeper',
          'postgres',
          'etcd',
        ].sort(),
      );
      expect(svc('mysql').image).toMatch(/^mysql:8/);
      const optional = Object.entries(compose.services)
        .filter(([, s]) => s.profiles)
        .map(([n, s]) => [n, s.profiles])
        .sort();
      expect(optional).toEqual([
        ['live', ['live']],
        ['prometheus', ['metrics']],
      ]);
    });

    it('scrapes the three instances from Prometheus (prometheus/compose.yml)', () => {
      const mount = (svc('prometheus').volumes ?? []).map((v) => (typeof v === 'string' ? v : `${v.source}:${v.target}`)).join(' ');
      expect(mount).toContain('prometheus/compose.yml:/etc/prometheus/prometheus.yml');
      const conf = fs.readFileSync(path.join(ROOT, 'prometheus/compose.yml'), 'utf8');
      const targets = [...(/targets:\s*\[([^\]]*)\]/.exec(conf)?.[1]?.matchAll(/'([\w.-]+:\d+)'/g) ?? [])].map((m) => m[1]);
      expect(targets).toEqual(APPS.map((a) => `${a}:${env(svc(a)).PORT}`));
      expect(conf).toMatch(/honor_labels: true/);
    });

    it('serves the live page from the service image, with the Docker socket for its faults', () => {
      const live = svc('live');
      expect(live.image).toBe(svc('app1').image);
      expect(String(live.command)).toContain('live/compose-cli.ts');
      expect(fs.existsSync(path.join(ROOT, 'live/compose-cli.ts'))).toBe(true);
      expect((live.volumes ?? []).map(String).join(' ')).toMatch(/:\/var\/run\/docker\.sock(:rw)?$/);
      const e = loadLiveConfig(env(live));
      expect(published(live)).toEqual([{ hostIp: '127.0.0.1', host: e.port, container: e.port }]);
      expect(e.host).toBe('0.0.0.0');
    });

    it('publishes ports on 127.0.0.1 only, on the native defaults', () => {
      for (const [name, s] of Object.entries(compose.services)) {
        for (const p of published(s)) expect(p.hostIp, `${name} ${p.host}`).toBe('127.0.0.1');
      }
      expect(APPS.flatMap((a) => published(svc(a)).map((p) => p.host))).toEqual(native.ports.instances);
      expect(published(svc('nginx')).map((p) => p.host)).toEqual([native.ports.nginx]);
      // the bench reads units left from these with its defaults
      expect(published(svc('mysql')).map((p) => p.host)).toEqual([native.ports.mysql]);
      expect(published(svc('redis')).map((p) => p.host)).toEqual([native.ports.redis]);
    });

    it('gives every instance a valid environment pointing at the compose services', () => {
      APPS.forEach((a, i) => {
        const cfg = loadServiceConfig(env(svc(a)));
        expect(cfg.host).toBe('0.0.0.0');
        expect(cfg.port).toBe(native.ports.instances[i]);
        expect(published(svc(a))).toEqual([{ hostIp: '127.0.0.1', host: cfg.port, container: cfg.port }]);
        expect(cfg.instanceId).toBe(`app-${cfg.port}`);
        expect(compose.services[cfg.mysql.host]).toBeDefined();
        expect(new URL(cfg.redis.url).hostname).toBe('redis');
        const redlocks = cfg.redlock.urls.map((u) => new URL(u).hostname);
        expect(redlocks).toEqual(['redlock1', 'redlock2', 'redlock3', 'redlock4', 'redlock5']);
        expect(compose.services[cfg.zookeeper.connect.split(':')[0] ?? '']).toBeDefined();
      });
    });

    it('starts in order: mysql → migrate → instances → nginx, waiting on health', () => {
      expect(svc('migrate').depends_on?.mysql?.condition).toBe('service_healthy');
      expect(String(svc('migrate').command)).toContain('src/db/migrate-cli.ts');
      expect(fs.existsSync(path.join(ROOT, 'src/db/migrate-cli.ts'))).toBe(true);
      for (const a of APPS) {
        const deps = svc(a).depends_on ?? {};
        expect(deps.migrate?.condition).toBe('service_completed_successfully');
        for (const d of ['redis', 'redlock1', 'redlock5', 'zookeeper']) expect(deps[d]?.condition, `${a} → ${d}`).toBe('service_healthy');
        expect(svc('nginx').depends_on?.[a]?.condition).toBe('service_healthy');
      }
      // whatever is waited on for health must have a healthcheck
      for (const s of Object.values(compose.services)) {
        for (const [dep, { condition }] of Object.entries(s.depends_on ?? {})) {
          if (condition === 'service_healthy') expect(svc(dep).healthcheck, dep).toBeDefined();
        }
      }
    });

    it('mounts nginx/compose.conf, whose upstreams are the instances', () => {
      const mount = (svc('nginx').volumes ?? []).map((v) => (typeof v === 'string' ? v : `${v.source}:${v.target}`)).join(' ');
      expect(mount).toContain('nginx/compose.conf:/etc/nginx/nginx.conf');
      const conf = fs.readFileSync(path.join(ROOT, 'nginx/compose.conf'), 'utf8');
      const upstreams = [...conf.matchAll(/^\s*server\s+([\w.-]+):(\d+);/gm)].map((m) => `${m[1]}:${m[2]}`);
      expect(upstreams).toEqual(APPS.map((a) => `${a}:${env(svc(a)).PORT}`));
      const listen = /^\s*listen\s+(?:[\d.]+:)?(\d+)[\s;]/m.exec(conf)?.[1];
      expect(published(svc('nginx'))[0]?.container).toBe(Number(listen));
    });

    it('keeps each instance at a fixed address, so nginx (which resolves them once) reaches a restarted one', () => {
      // on the network's subnet, outside the range every other container takes its address from
      const value = (v: string | undefined) => (v ?? '').replace(/\$\{\w+:-([^}]*)\}/g, '$1'); // the raw file's defaults, without compose
      const ipam = compose.networks?.default?.ipam?.config?.[0];
      const toInt = (ip: string) => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
      const inCidr = (ip: string, cidr: string) => {
        const [base = '', bits = '32'] = cidr.split('/');
        const size = 2 ** (32 - Number(bits));
        return Math.floor(toInt(ip) / size) === Math.floor(toInt(base) / size);
      };
      const subnet = value(ipam?.subnet);
      const range = value(ipam?.ip_range);
      const addresses = APPS.map((a) => value(svc(a).networks?.default?.ipv4_address));
      expect(new Set(addresses).size).toBe(APPS.length);
      for (const ip of addresses) expect({ ip, inSubnet: inCidr(ip, subnet), inRange: inCidr(ip, range) }).toEqual({ ip, inSubnet: true, inRange: false });
    });
  });
});

describe('docker-compose.replicated.yml', () => {
  it.runIf(canRun(dockerCompose))(
    'is a valid override of docker-compose.yml (docker-compose config -q)',
    () => {
      execFileSync(need(dockerCompose, 'docker-compose'), ['-f', COMPOSE, '-f', REPLICATED, 'config', '-q'], { cwd: ROOT, stdio: 'pipe' });
    },
    30_000,
  ); // docker-compose v1 (Python) takes seconds to start on a busy 2-core machine

  describe.runIf(canRun(dockerCompose, python))('defines the native replicated topology', () => {
    let compose: Compose = { services: {} };
    beforeAll(() => {
      compose = loadCompose([COMPOSE, REPLICATED]);
    }, 60_000);
    const svc = (name: string): Service => {
      const s = compose.services[name];
      if (!s) throw new Error(`no service ${name}`);
      return s;
    };
    const native = loadClusterConfig({ TOPOLOGY: 'replicated' }).replicated;
    const commandOf = (s: Service) => (Array.isArray(s.command) ? s.command.join(' ') : String(s.command));

    it("adds a replica of the main Redis and three Sentinels watching it under the service's master name", () => {
      expect(commandOf(svc('redis-replica'))).toMatch(/--replicaof redis 6379/);
      const sentinels = Object.keys(compose.services)
        .filter((n) => n.startsWith('sentinel'))
        .sort();
      expect(sentinels).toHaveLength(native?.sentinels.length ?? 0);
      for (const name of sentinels) expect(commandOf(svc(name))).toContain(`sentinel monitor ${SENTINEL_MASTER_NAME} redis 6379 2`);
      // no published ports: Sentinel's addresses only work inside the compose network
      for (const name of [...sentinels, 'redis-replica']) expect(published(svc(name)), name).toEqual([]);
    });

    it('makes ZooKeeper a three-node ensemble that every node and every instance agrees on', () => {
      const nodes = Object.keys(compose.services)
        .filter((n) => n.startsWith('zookeeper'))
        .sort();
      expect(nodes).toHaveLength(native?.zookeeper.length ?? 0);
      const servers = nodes.map((n) => env(svc(n)).ZOO_SERVERS);
      expect(new Set(servers).size).toBe(1);
      expect(nodes.map((n) => env(svc(n)).ZOO_MY_ID).sort()).toEqual(['1', '2', '3']);
      for (const [i, n] of nodes.entries()) expect(servers[0]).toContain(`server.${i + 1}=${n}:2888:3888;2181`);
    });

    it('points every instance at the Sentinels and the whole ensemble, waiting for them', () => {
      for (const a of APPS) {
        const cfg = loadServiceConfig(env(svc(a)));
        expect(cfg.redis.sentinel?.masterName).toBe(SENTINEL_MASTER_NAME);
        for (const { host, port } of cfg.redis.sentinel?.sentinels ?? []) {
          expect(compose.services[host], host).toBeDefined();
          expect(port).toBe(26379);
          expect(svc(a).depends_on?.[host]?.condition).toBe('service_healthy');
        }
        const zk = cfg.zookeeper.connect.split(',').map((h) => h.split(':')[0] ?? '');
        expect(zk.sort()).toEqual(
          Object.keys(compose.services)
            .filter((n) => n.startsWith('zookeeper'))
            .sort(),
        );
      }
    });
  });
});

describe('nginx/compose.conf', () => {
  // Everything but addresses and file paths must match the native config, so both clusters proxy alike.
  const ADDRESSED = /^(listen|server|pid|error_log|\w+_temp_path)\b/;
  const directives = (file: string) =>
    fs
      .readFileSync(path.join(ROOT, 'nginx', file), 'utf8')
      .split('\n')
      .map((l) => l.replace(/#.*/, '').trim())
      .filter((l) => l && !ADDRESSED.test(l));

  /** The Host names a config answers to: the entries its `map $host $stocklab_known_host` sets to 1. */
  const knownHosts = (file: string) => {
    const text = fs.readFileSync(path.join(ROOT, 'nginx', file), 'utf8');
    const block = /map\s+\$host\s+\$stocklab_known_host\s*\{([^}]*)\}/.exec(text)?.[1] ?? '';
    return [...block.matchAll(/^\s*(\S+)\s+1;/gm)].map((m) => m[1]);
  };
  const COMPOSE_SERVICE = 'nginx';

  it('mirrors the settings of nginx/nginx.conf', () => {
    // compose's nginx also answers to its service name as Host; everything else is the same.
    const composeOnly = new RegExp(`^${COMPOSE_SERVICE}\\s+1;$`);
    expect(directives('compose.conf').filter((l) => !composeOnly.test(l))).toEqual(directives('nginx.conf'));
  });

  it('answers only to localhost and 127.0.0.1, and in compose also to its service name', () => {
    expect(knownHosts('nginx.conf')).toEqual(['localhost', '127.0.0.1']);
    expect(knownHosts('compose.conf')).toEqual(['localhost', '127.0.0.1', COMPOSE_SERVICE]);
    expect(fs.readFileSync(COMPOSE, 'utf8')).toMatch(new RegExp(`^  ${COMPOSE_SERVICE}:$`, 'm'));
  });
});
