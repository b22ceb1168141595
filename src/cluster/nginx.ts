// nginx: render nginx/nginx.conf for the cluster's ports and run it with its prefix under <dir>.
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../paths.js';
import type { Binaries } from './packages.js';
import { pollUntil } from '../time.js';
import { groupMembers } from './processes.js';
import { healthOk } from './probes.js';
import type { ServerSpec } from './server.js';

export const NGINX_TEMPLATE = path.join(REPO_ROOT, 'nginx', 'nginx.conf');

/**
 * The template with its `listen` port and upstream `server` lines replaced; everything else is kept.
 * Throws if the template no longer has exactly one upstream block or one listen line.
 */
export function renderNginxConf(template: string, listenPort: number, upstreamPorts: number[], downPorts: readonly number[] = []): string {
  if (upstreamPorts.length === 0) throw new Error('nginx: no upstream ports');
  const listens = template.match(/^\s*listen\s+[^;]+;/gm) ?? [];
  if (listens.length !== 1) throw new Error(`nginx template: expected one listen line, found ${listens.length}`);
  const upstreams = [...template.matchAll(/upstream\s+\S+\s*\{[^}]*\}/g)];
  if (upstreams.length !== 1) throw new Error(`nginx template: expected one upstream block, found ${upstreams.length}`);

  let out = template.replace(/^(\s*)listen\s+[^;]+;/m, (_m, indent: string) => `${indent}listen 127.0.0.1:${listenPort};`);
  out = out.replace(/upstream\s+\S+\s*\{[^}]*\}/, (block) => {
    const lines = block.split('\n');
    const first = lines.findIndex((l) => /^\s*server\s+[^;]+;/.test(l));
    if (first < 0) throw new Error('nginx template: upstream block has no server line');
    const indent = /^\s*/.exec(lines[first] ?? '')?.[0] ?? '    ';
    // `down`: out of rotation (an instance being stopped on purpose), see NginxRotation.
    const servers = upstreamPorts.map((p) => `${indent}server 127.0.0.1:${p}${downPorts.includes(p) ? ' down' : ''};`);
    const kept = lines.filter((l, i) => i === first || !/^\s*server\s+[^;]+;/.test(l));
    kept.splice(kept.indexOf(lines[first] ?? ''), 1, ...servers);
    return kept.join('\n');
  });
  return out;
}

export function nginxSpec(listenPort: number, upstreamPorts: number[], dir: string, bin: Binaries, rotation?: NginxRotation): ServerSpec {
  const prefix = path.join(dir, 'nginx');
  const confFile = path.join(prefix, 'nginx.conf');
  return {
    name: 'nginx',
    port: listenPort,
    logFile: path.join(dir, 'logs', 'nginx.log'),
    extraLogs: [path.join(prefix, 'logs', 'error.log')],
    startTimeoutMs: 10_000,
    stopGraceMs: 5_000,
    prepare() {
      // nginx creates the last component of each temp path itself, not its parents
      for (const d of ['logs', 'temp']) fs.mkdirSync(path.join(prefix, d), { recursive: true });
      fs.writeFileSync(confFile, renderNginxConf(fs.readFileSync(NGINX_TEMPLATE, 'utf8'), listenPort, upstreamPorts, rotation?.down ?? []));
    },
    launch: () => ({
      command: bin.nginx,
      // -e: errors before the config is read go to stderr (our log), not /var/log/nginx
      args: ['-p', prefix + '/', '-c', confFile, '-e', 'stderr', '-g', 'daemon off;'],
    }),
    // healthy once a request goes through it to an instance
    healthy: () => healthOk(listenPort),
  };
}

/**
 * Which instances nginx sends requests to. An instance stopped on purpose is taken out first
 * (marked `down`, nginx reloaded), so no request reaches it while it drains or after it has closed:
 * nginx never resends a deduction, so a refused connection would be a 502, an outcome unknown to
 * the client. A crash (kill) takes nothing out: that is what the fault lab measures.
 */
export class NginxRotation {
  private readonly out = new Set<number>();
  /** The running nginx, once started; set by the cluster. */
  server: { readonly pid: number | undefined } | undefined;

  constructor(
    private readonly listenPort: number,
    private readonly upstreamPorts: number[],
    private readonly dir: string,
  ) {}

  get down(): number[] {
    return [...this.out];
  }

  /** Puts `port` in or out of rotation; with nginx running, rewrites its config and reloads it. */
  async set(port: number, inRotation: boolean): Promise<void> {
    if (inRotation === !this.out.has(port)) return;
    if (inRotation) this.out.delete(port);
    else this.out.add(port);
    const master = this.server?.pid;
    if (master === undefined) return; // rendered at its next start
    const confFile = path.join(this.dir, 'nginx', 'nginx.conf');
    fs.writeFileSync(confFile, renderNginxConf(fs.readFileSync(NGINX_TEMPLATE, 'utf8'), this.listenPort, this.upstreamPorts, this.down));
    await reload(master);
  }
}

/**
 * SIGHUP to the master (nginx -s reload), then waits until every worker of the old configuration
 * has stopped accepting (exited, or titled "shutting down"): from then on no new request can be
 * routed by the old upstream list.
 */
async function reload(master: number): Promise<void> {
  const before = groupMembers(master).filter((p) => p !== master);
  process.kill(master, 'SIGHUP');
  const switched = await pollUntil(() => before.every((w) => !isAcceptingWorker(w)), 5_000, 20);
  if (!switched) throw new Error(`nginx (pid ${master}) did not reload within 5 s; see its error.log`);
}

function isAcceptingWorker(pid: number): boolean {
  try {
    const title = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return !title.includes('shutting down');
  } catch {
    return false; // gone
  }
}
