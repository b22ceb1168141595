// nginx: render nginx/nginx.conf for the cluster's ports and run it with its prefix under <dir>.
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../paths.js';
import type { Binaries } from './packages.js';
import { pollUntil } from '../time.js';
import { groupMembers, openFileLimits } from './processes.js';
import { ON_LOOPBACK, type Placement } from './placement.js';
import { healthOk } from './probes.js';
import type { ServerSpec } from './server.js';

export const NGINX_TEMPLATE = path.join(REPO_ROOT, 'nginx', 'nginx.conf');

/** What a rendering may change besides the ports. */
export interface NginxRenderOptions {
  /** Instances out of rotation (marked `down`), see NginxRotation. */
  down?: readonly number[];
  /** Requests in flight nginx admits before its own 503 busy (the template's `limit_conn`). */
  capacity?: number;
  /** The highest open-file limit nginx's workers may set; the template's `worker_rlimit_nofile` is lowered to it. */
  maxNofile?: number;
  /** The address nginx and each instance listen on (the hosts topology); loopback when absent. */
  addresses?: NginxAddresses;
}

export interface NginxAddresses {
  listen: string;
  /** Where nginx reaches the instance listening on `port`: host:port (its own address, or its delaying forwarder). */
  upstream: (port: number) => string;
}

/**
 * The template with its `listen` address and upstream `server` lines replaced, and the capacity or
 * open-file limit when asked; everything else is kept.
 * Throws if the template no longer has exactly one upstream block, listen line or limit_conn.
 */
export function renderNginxConf(template: string, listenPort: number, upstreamPorts: number[], opts: NginxRenderOptions = {}): string {
  if (upstreamPorts.length === 0) throw new Error('nginx: no upstream ports');
  const listens = template.match(/^\s*listen\s+[^;]+;/gm) ?? [];
  if (listens.length !== 1) throw new Error(`nginx template: expected one listen line, found ${listens.length}`);
  const upstreams = [...template.matchAll(/upstream\s+\S+\s*\{[^}]*\}/g)];
  if (upstreams.length !== 1) throw new Error(`nginx template: expected one upstream block, found ${upstreams.length}`);

  // the address only: the listen parameters (backlog) stay
  let out = template.replace(
    /^(\s*)listen\s+\S+?(\s[^;]*)?;/m,
    (_m, indent: string, params: string | undefined) => `${indent}listen ${opts.addresses?.listen ?? '127.0.0.1'}:${listenPort}${params ?? ''};`,
  );
  const down = opts.down ?? [];
  out = out.replace(/upstream\s+\S+\s*\{[^}]*\}/, (block) => {
    const lines = block.split('\n');
    const first = lines.findIndex((l) => /^\s*server\s+[^;]+;/.test(l));
    if (first < 0) throw new Error('nginx template: upstream block has no server line');
    const indent = /^\s*/.exec(lines[first] ?? '')?.[0] ?? '    ';
    // `down`: out of rotation (an instance being stopped on purpose), see NginxRotation.
    const servers = upstreamPorts.map((p) => `${indent}server ${opts.addresses?.upstream(p) ?? `127.0.0.1:${p}`}${down.includes(p) ? ' down' : ''};`);
    const kept = lines.filter((l, i) => i === first || !/^\s*server\s+[^;]+;/.test(l));
    kept.splice(kept.indexOf(lines[first] ?? ''), 1, ...servers);
    return kept.join('\n');
  });
  // The hosts topology: nginx's own address is a Host it answers to (the machine's tools ask it there).
  const listen = opts.addresses?.listen;
  if (listen !== undefined && listen !== '127.0.0.1') {
    const known = /^(\s*)127\.0\.0\.1(\s+)1;$/m;
    if (!known.test(out)) throw new Error('nginx template: no "127.0.0.1 1;" line in the known-host map');
    out = out.replace(known, (line, indent: string, gap: string) => `${line}\n${indent}${listen}${gap}1;`);
  }
  if (opts.capacity !== undefined) out = replaceNumber(out, /^(\s*limit_conn\s+\S+\s+)(\d+);/m, 'limit_conn', opts.capacity);
  if (opts.maxNofile !== undefined) {
    const nofile = /^\s*worker_rlimit_nofile\s+(\d+);/m.exec(out);
    if (nofile && Number(nofile[1]) > opts.maxNofile) out = replaceNumber(out, /^(\s*worker_rlimit_nofile\s+)(\d+);/m, 'worker_rlimit_nofile', opts.maxNofile);
  }
  return out;
}

function replaceNumber(text: string, directive: RegExp, name: string, value: number): string {
  if (!directive.test(text)) throw new Error(`nginx template: no ${name} line to set`);
  return text.replace(directive, (_m, head: string) => `${head}${value};`);
}

/**
 * The open-file limit nginx's workers can raise themselves to: any for root, else this process's
 * hard limit, which nginx (a child of this process) inherits. Node already raised its own soft limit
 * to the hard one at start, so nginx's master starts with it too. Undefined: no limit to respect.
 */
export function nginxMaxNofile(): number | undefined {
  return process.getuid?.() === 0 ? undefined : (openFileLimits().hard ?? undefined);
}

/** The project's template rendered for this cluster into `confFile`. */
function writeNginxConf(
  confFile: string,
  listenPort: number,
  upstreamPorts: number[],
  opts: Pick<NginxRenderOptions, 'down' | 'capacity' | 'addresses'>,
): void {
  fs.writeFileSync(confFile, renderNginxConf(fs.readFileSync(NGINX_TEMPLATE, 'utf8'), listenPort, upstreamPorts, { ...opts, maxNofile: nginxMaxNofile() }));
}

/** `upstream`: where nginx reaches each instance, host:port (see NginxAddresses); 127.0.0.1:PORT when absent. */
export function nginxSpec(
  listenPort: number,
  upstreamPorts: number[],
  dir: string,
  bin: Binaries,
  rotation?: NginxRotation,
  capacity?: number,
  place: Placement = ON_LOOPBACK,
  upstream?: (port: number) => string,
): ServerSpec {
  const addresses = upstream && { listen: place.host, upstream };
  const prefix = path.join(dir, 'nginx');
  const confFile = path.join(prefix, 'nginx.conf');
  return {
    name: 'nginx',
    port: listenPort,
    ...place,
    logFile: path.join(dir, 'logs', 'nginx.log'),
    extraLogs: [path.join(prefix, 'logs', 'error.log')],
    startTimeoutMs: 10_000,
    stopGraceMs: 5_000,
    prepare() {
      // nginx creates the last component of each temp path itself, not its parents
      for (const d of ['logs', 'temp']) fs.mkdirSync(path.join(prefix, d), { recursive: true });
      writeNginxConf(confFile, listenPort, upstreamPorts, { down: rotation?.down ?? [], capacity, addresses });
    },
    launch: () => ({
      command: bin.nginx,
      // -e: errors before the config is read go to stderr (our log), not /var/log/nginx
      args: ['-p', prefix + '/', '-c', confFile, '-e', 'stderr', '-g', 'daemon off;'],
    }),
    // healthy once a request goes through it to an instance
    healthy: () => healthOk({ host: place.host, port: listenPort }),
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
    private readonly capacity?: number,
    private readonly addresses?: NginxAddresses,
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
    writeNginxConf(confFile, this.listenPort, this.upstreamPorts, { down: this.down, capacity: this.capacity, addresses: this.addresses });
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
