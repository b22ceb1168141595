// A second nginx in front of the same instances, with the project's config minus its
// `proxy_next_upstream off;` lines (the deduction's and the /test/ clicks'). That is nginx's default
// behaviour (resend to the next instance on an error), which the nginx-retry scenario compares with
// the project's.
import fs from 'node:fs';
import path from 'node:path';
import { ManagedServer, type ServerHandle } from '../src/cluster/cluster.js';
import { NGINX_TEMPLATE, renderNginxConf } from '../src/cluster/nginx.js';
import { ensureBinaries } from '../src/cluster/packages.js';
import { freePorts } from '../src/cluster/ports.js';
import { healthOk } from '../src/cluster/probes.js';

const NEXT_UPSTREAM_OFF = /\n[ \t]*proxy_next_upstream\s+off;[^\n]*/g;
const CHECK_LOCK_OFF = /location\s*=\s*\/check\/lock\s*\{[^}]*proxy_next_upstream\s+off;/;

/** The project's template without those lines; throws if the deduction's is no longer there. */
export function withoutNextUpstreamOff(template: string): string {
  if (!CHECK_LOCK_OFF.test(template)) throw new Error('nginx template: no `proxy_next_upstream off;` in `location = /check/lock` to remove');
  return template.replace(NEXT_UPSTREAM_OFF, '');
}

/** Starts it on a free loopback port with its prefix under `dir`; stop() it when done. */
export function startDefaultNginx(dir: string, upstreamPorts: number[]): Promise<{ server: ServerHandle; base: string }> {
  return startNginxWith(dir, 'nginx-default', upstreamPorts, withoutNextUpstreamOff(fs.readFileSync(NGINX_TEMPLATE, 'utf8')));
}

/** An nginx running `template` (rendered for a free loopback port and `upstreamPorts`), its prefix under `dir/name`. */
export async function startNginxWith(dir: string, name: string, upstreamPorts: number[], template: string): Promise<{ server: ServerHandle; base: string }> {
  const [port] = await freePorts(1);
  if (port === undefined) throw new Error(`no free port for ${name}`);
  const prefix = path.join(dir, name);
  const confFile = path.join(prefix, 'nginx.conf');
  const bin = ensureBinaries();
  const server = new ManagedServer({
    name,
    port,
    logFile: path.join(prefix, 'nginx.log'),
    extraLogs: [path.join(prefix, 'logs', 'error.log')],
    startTimeoutMs: 10_000,
    stopGraceMs: 5_000,
    prepare() {
      for (const d of ['logs', 'temp']) fs.mkdirSync(path.join(prefix, d), { recursive: true });
      fs.writeFileSync(confFile, renderNginxConf(template, port, upstreamPorts));
    },
    launch: () => ({ command: bin.nginx, args: ['-p', prefix + '/', '-c', confFile, '-e', 'stderr', '-g', 'daemon off;'] }),
    healthy: () => healthOk(port),
  });
  await server.start();
  return { server, base: `http://127.0.0.1:${port}` };
}
