// A second nginx in front of the same instances, with the project's config minus one line: the
// `proxy_next_upstream off;` of `location = /check/lock`. That is nginx's default behaviour (resend
// to the next instance on an error), which the nginx-retry scenario compares with the project's.
import fs from 'node:fs';
import path from 'node:path';
import { ManagedServer, type ServerHandle } from '../src/cluster/cluster.js';
import { NGINX_TEMPLATE, renderNginxConf } from '../src/cluster/nginx.js';
import { ensureBinaries } from '../src/cluster/packages.js';
import { freePorts } from '../src/cluster/ports.js';
import { healthOk } from '../src/cluster/probes.js';

const NEXT_UPSTREAM_OFF = /(location\s*=\s*\/check\/lock\s*\{[^}]*?)\n[ \t]*proxy_next_upstream\s+off;[^\n]*/;

/** The project's template without the one line; throws if the template no longer has it. */
export function withoutNextUpstreamOff(template: string): string {
  if (!NEXT_UPSTREAM_OFF.test(template)) throw new Error('nginx template: no `proxy_next_upstream off;` in `location = /check/lock` to remove');
  return template.replace(NEXT_UPSTREAM_OFF, '$1');
}

/** Starts it on a free loopback port with its prefix under `dir`; stop() it when done. */
export async function startDefaultNginx(dir: string, upstreamPorts: number[]): Promise<{ server: ServerHandle; base: string }> {
  const [port] = await freePorts(1);
  if (port === undefined) throw new Error('no free port for the second nginx');
  const prefix = path.join(dir, 'nginx-default');
  const confFile = path.join(prefix, 'nginx.conf');
  const bin = ensureBinaries();
  const server = new ManagedServer({
    name: 'nginx-default',
    port,
    logFile: path.join(prefix, 'nginx.log'),
    extraLogs: [path.join(prefix, 'logs', 'error.log')],
    startTimeoutMs: 10_000,
    stopGraceMs: 5_000,
    prepare() {
      for (const d of ['logs', 'temp']) fs.mkdirSync(path.join(prefix, d), { recursive: true });
      fs.writeFileSync(confFile, renderNginxConf(withoutNextUpstreamOff(fs.readFileSync(NGINX_TEMPLATE, 'utf8')), port, upstreamPorts));
    },
    launch: () => ({ command: bin.nginx, args: ['-p', prefix + '/', '-c', confFile, '-e', 'stderr', '-g', 'daemon off;'] }),
    healthy: () => healthOk(port),
  });
  await server.start();
  return { server, base: `http://127.0.0.1:${port}` };
}
