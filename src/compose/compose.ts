// Driving a docker compose topology of this repository: which compose is installed (the v2 plugin,
// `docker compose`, or v1, `docker-compose`), the files of each topology, up/down, and where its
// services are published on the host.
import { execFile, execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { StoreAddresses } from '../cluster/stores.js';
import { pollUntil } from '../time.js';

const run = promisify(execFile);

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type ComposeTopologyName = 'base' | 'replicated';

/** docker-compose.yml's optional profiles: Prometheus, and the live lab's page. */
export const OPTIONAL_PROFILES = ['metrics', 'live'] as const;

/** The compose files of a topology, in override order. */
export function topologyFiles(topology: ComposeTopologyName, root = ROOT): string[] {
  const base = path.join(root, 'docker-compose.yml');
  return topology === 'replicated' ? [base, path.join(root, 'docker-compose.replicated.yml')] : [base];
}

/** The compose command: the v2 plugin when it answers, else v1; undefined when neither is installed. */
export function detectCompose(): string[] | undefined {
  for (const cmd of [['docker', 'compose'], ['docker-compose']]) {
    try {
      execFileSync(cmd[0] as string, [...cmd.slice(1), 'version'], { stdio: 'ignore' });
      return cmd;
    } catch {
      // not this one
    }
  }
  return undefined;
}

export interface ComposeProject {
  /** The compose command, e.g. ['docker', 'compose'] or ['docker-compose']. */
  command: string[];
  files: string[];
  /** -p: containers, networks and volumes are named after it. */
  name?: string;
  /** Where relative paths in the files resolve: the repository. */
  directory: string;
  /** Optional profiles to turn on (--profile), e.g. metrics (Prometheus), live (the live lab page). */
  profiles?: string[];
}

export function composeArgs(p: ComposeProject, args: string[]): string[] {
  return [
    ...p.command.slice(1),
    ...(p.name ? ['-p', p.name] : []),
    ...(p.profiles ?? []).flatMap((x) => ['--profile', x]),
    '--project-directory',
    p.directory,
    ...p.files.flatMap((f) => ['-f', f]),
    ...args,
  ];
}

/** Runs compose and returns its stdout; a failure carries its stderr. */
export async function compose(p: ComposeProject, args: string[], timeoutMs = 600_000): Promise<string> {
  try {
    const { stdout } = await run(p.command[0] as string, composeArgs(p, args), { maxBuffer: 64 << 20, timeout: timeoutMs });
    return stdout;
  } catch (err) {
    const e = err as Error & { stderr?: string; stdout?: string };
    throw new Error(`${p.command.join(' ')} ${args.join(' ')} failed: ${e.message}\n${e.stderr ?? ''}`.trim());
  }
}

/** Runs compose with its output shown (long steps such as a build), rejecting on a non-zero exit. */
export function composeLoud(p: ComposeProject, args: string[], out: NodeJS.WritableStream = process.stderr): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(p.command[0] as string, composeArgs(p, args), { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${p.command.join(' ')} ${args.join(' ')} exited ${code}`))));
  });
}

/**
 * Brings the topology up and waits until every service is healthy (or, for a one-shot such as
 * migrate, has exited 0): compose's own `depends_on` order, then `ps` until nothing is starting.
 */
export async function up(p: ComposeProject, timeoutMs: number, log: (line: string) => void): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await composeLoud(p, ['up', '-d', '--build']);
  for (;;) {
    const states = await serviceStates(p);
    const waiting = states.filter((s) => !s.ready);
    const failed = states.filter((s) => s.failed);
    if (failed.length > 0) {
      const logs = await compose(p, ['logs', '--no-color', '--tail', '15', ...failed.map((s) => s.service)]).catch(() => '');
      throw new Error(`compose: ${failed.map((s) => `${s.service} ${s.state}`).join(', ')}\n${logs}`);
    }
    if (waiting.length === 0 && states.length > 0) return;
    if (Date.now() > deadline)
      throw new Error(`compose: not healthy within ${timeoutMs / 1000} s: ${waiting.map((s) => `${s.service} ${s.state}`).join(', ')}`);
    log(`compose: waiting for ${waiting.map((s) => s.service).join(', ')}`);
    await new Promise((r) => setTimeout(r, 2_000));
  }
}

/**
 * Every instance's checks green, seen through nginx. An instance is healthy to compose once MySQL
 * answers (its /health is 200 then); the other stores' checks may still be false while its clients
 * open their first connections. Round robin: six green answers in a row are each instance twice.
 */
export async function everyInstanceGreen(nginx: string): Promise<boolean> {
  for (let i = 0; i < 6; i++) {
    try {
      const res = await fetch(`${nginx}/health`, { signal: AbortSignal.timeout(3_000) });
      if (!res.ok || ((await res.json()) as { ok?: unknown }).ok !== true) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** How long `up` gives the instances' checks to turn green once compose calls them healthy. */
export const GREEN_BOUND_MS = 60_000;

/** Waits (boundMs at most) until every instance's checks are green through nginx; how long it took. */
export async function untilEveryInstanceGreen(nginx: string, boundMs = GREEN_BOUND_MS): Promise<number> {
  const t0 = Date.now();
  if (!(await pollUntil(() => everyInstanceGreen(nginx), boundMs, 250))) throw new Error(`compose: ${nginx}/health not green within ${boundMs} ms`);
  return Date.now() - t0;
}

export async function down(p: ComposeProject): Promise<void> {
  await compose(p, ['down', '-v', '--remove-orphans', '--timeout', '5']);
}

export interface ServiceState {
  service: string;
  /** docker's status and health, e.g. "running healthy", "exited 0". */
  state: string;
  ready: boolean;
  failed: boolean;
}

/** Every container of the project, read from docker itself (compose v1 and v2 print `ps` differently). */
export async function serviceStates(p: ComposeProject): Promise<ServiceState[]> {
  const ids = (await compose(p, ['ps', '-q', '-a'])).split('\n').filter(Boolean);
  if (ids.length === 0) return [];
  const format =
    '{{index .Config.Labels "com.docker.compose.service"}} {{.State.Status}} {{.State.ExitCode}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}} {{.HostConfig.RestartPolicy.Name}}';
  const { stdout } = await run('docker', ['inspect', '--format', format, ...ids]);
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [service = '', status = '', exitCode = '', health = '', restart = ''] = line.split(' ');
      const oneShot = restart === 'no' || restart === '';
      const ready = status === 'running' ? health === 'none' || health === 'healthy' : status === 'exited' && exitCode === '0' && oneShot;
      const failed = health === 'unhealthy' || (status === 'exited' && exitCode !== '0') || status === 'dead';
      return { service, state: `${status} ${status === 'exited' ? exitCode : health}`, ready, failed };
    });
}

/** The host address compose published a service's port on, as http://127.0.0.1:N (or host:N). */
export async function publishedAddress(p: ComposeProject, service: string, port: number): Promise<{ host: string; port: number }> {
  const out = (await compose(p, ['port', service, String(port)])).trim();
  const m = /^(.*):(\d+)$/.exec(out);
  if (!m) throw new Error(`compose: ${service}:${port} is not published (${out || 'no answer'})`);
  const host = m[1] === '0.0.0.0' || m[1] === '' ? '127.0.0.1' : (m[1] as string);
  return { host, port: Number(m[2]) };
}

/** What the bench and the tests reach of a running topology: all of it through published ports. */
export interface ComposeEndpoints {
  nginx: string;
  /** app1, for the bench's one-instance runs. */
  instance: string;
  stores: StoreAddresses;
}

export async function endpointsOf(p: ComposeProject, env: NodeJS.ProcessEnv = process.env): Promise<ComposeEndpoints> {
  const [nginx, instance, mysql, redis, postgres] = await Promise.all([
    publishedAddress(p, 'nginx', 8080),
    publishedAddress(p, 'app1', 8000),
    publishedAddress(p, 'mysql', 3306),
    publishedAddress(p, 'redis', 6379),
    publishedAddress(p, 'postgres', 5432),
  ]);
  // the credentials docker-compose.yml gives the stocklab user, Redis and PostgreSQL
  const redisAuth = env.REDIS_PASSWORD ? `:${encodeURIComponent(env.REDIS_PASSWORD)}@` : '';
  return {
    nginx: `http://${nginx.host}:${nginx.port}`,
    instance: `http://${instance.host}:${instance.port}`,
    stores: {
      mysql: { ...mysql, user: 'stocklab', password: env.MYSQL_PASSWORD ?? 'stocklab', database: 'stocklab' },
      redis: `redis://${redisAuth}${redis.host}:${redis.port}`,
      postgres: { ...postgres, user: 'stocklab', password: env.PG_PASSWORD ?? 'stocklab', database: 'stocklab' },
    },
  };
}
