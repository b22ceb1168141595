// The live lab's HTTP server, on 127.0.0.1 only: the page, its server-sent events, and the requests
// that change things (race, fault, reset), each of which needs the token this server made at start
// and gave only to its own page, in a custom header: another site cannot send that header without
// a CORS preflight, and this server answers every preflight with a refusal.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LiveConfig } from '../src/config.js';
import { exportedRun, livePage, type Assets } from './assets.js';
import { FaultError } from './fault-error.js';
import { FaultBoard, MAX_FAULT_MS } from './faults.js';
import { runRace } from './race.js';
import { retime } from './rtt.js';
import type { LabServers, Proc } from './servers.js';
import { faultSchema, InputError, parseRace, parseWith, type FaultRequest } from './settings.js';
import { CUT_FROM, type LabState, type LiveEvent, type RunLog, type StrategyInfo } from './shared/types.js';
import { LANGS, type Bilingual, type Lang } from '../src/lang.js';
import { monotonicMs } from '../src/time.js';

export const TOKEN_HEADER = 'x-live-token';
const BODY_LIMIT = 4_096;
/** Runs kept in memory for the page's list and export. */
const RUNS_KEPT = 20;
/** With no page left open, every fault heals after this (a reload reconnects well within it). */
const PAGE_GONE_MS = 2_000;
const NEEDS_HOSTS = 'cutting a link needs the hosts topology, a network namespace per server (as root: npm run live -- --topology hosts)';
const NEEDS_LINKS =
  'rttMs needs a cluster brought up with delayed links (npm run live -- --rtt 2, or npm run cluster -- up --rtt 2): this one has no forwarders to retime';

export interface LiveServer {
  url: string;
  token: string;
  close(): Promise<void>;
}

export async function startLiveServer(servers: LabServers, config: LiveConfig, assets: Assets, port = config.port): Promise<LiveServer> {
  const token = randomBytes(24).toString('base64url');
  // Listening beyond loopback happens only in a container, which compose publishes on a host port
  // of its choosing (the test's are free ports): the Host's port is then not ours to check.
  const behindPublishedPort = !isLoopback(config.host);
  const strategies = await fetchStrategies(servers.info.instances[0] as string);
  const clients = new Set<http.ServerResponse>();
  const runs: RunLog[] = [];
  let racing = false;
  const emit = (e: LiveEvent) => {
    const line = `data: ${JSON.stringify(e)}\n\n`;
    for (const c of clients) c.write(line);
  };
  const faults = new FaultBoard(monotonicMs(), () => {
    if (!racing) emit({ type: 'faults', faults: faults.marks() });
  });
  let goneTimer: NodeJS.Timeout | undefined;
  /** While a race runs at its own round trip: the links' round trip before it, which a close sets back too. */
  let rttBefore: number | undefined;

  const state = (): LabState => ({
    lanes: servers.instances.map((p) => p.name),
    topology: servers.topology,
    network: servers.network.layout ? 'hosts' : 'loopback',
    racing,
    faults: faults.marks(),
    redlock: servers.redlock.map((p) => p.name),
    zookeeper: servers.zookeeper.name,
    limits: { maxRequests: config.maxRequests, maxSeconds: config.maxSeconds, maxFaultMs: MAX_FAULT_MS },
    rttMs: servers.network.delayable ? servers.network.rttMs() : null,
  });

  const procByName = (name: string | undefined, list: Proc[], field = 'target'): Proc => {
    const p = list.find((x) => x.name === name);
    if (!p) throw new InputError(400, 'bad_request', `${field} must be one of ${list.map((x) => x.name).join(', ')}`, field);
    return p;
  };

  async function fault(req: FaultRequest): Promise<unknown> {
    const all = [...servers.instances, ...servers.redlock, servers.zookeeper];
    switch (req.action) {
      case 'freeze':
        return faults.freeze(procByName(req.target, servers.instances), req.ms);
      case 'kill':
        return faults.kill(procByName(req.target, servers.instances), req.ms);
      case 'kill-redlock':
        return faults.kill(procByName(req.target ?? servers.redlock[0]?.name, servers.redlock), req.ms);
      case 'kill-zookeeper':
        return faults.kill(servers.zookeeper, req.ms);
      case 'partition': {
        if (!servers.network.layout) throw new InputError(400, 'bad_request', NEEDS_HOSTS, 'action');
        if (!req.from) throw new InputError(400, 'bad_request', `from must be one of ${CUT_FROM.join(', ')}`, 'from');
        return faults.cut(servers.network, procByName(req.target, servers.instances).name, req.from, req.ms);
      }
      case 'heal-partitions':
        return { healed: await faults.healCuts() };
      case 'heal':
        return { healed: await faults.heal(procByName(req.target, all).name) };
      case 'heal-all':
        await faults.healAll();
        return { healed: true };
    }
  }

  const routes: Record<string, (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => Promise<void> | void> = {
    'GET /': (_req, res) => send(res, 200, 'text/html; charset=utf-8', livePage(token)),
    'GET /app.js': (_req, res) => send(res, 200, 'text/javascript; charset=utf-8', assets.script),
    'GET /app.css': (_req, res) => send(res, 200, 'text/css; charset=utf-8', assets.style),
    'GET /api/strategies': (_req, res) => json(res, 200, { ok: true, strategies }),
    'GET /api/state': (_req, res) => json(res, 200, { ok: true, ...state() }),
    'GET /api/runs': (_req, res) =>
      json(res, 200, { ok: true, runs: runs.map((r) => ({ id: r.id, startedAt: r.startedAt, settings: r.settings, summary: r.summary })) }),
    'GET /api/run': (_req, res, url) => {
      const run = runs.find((r) => r.id === url.searchParams.get('id'));
      if (!run) return json(res, 404, { ok: false, error: 'not_found', field: 'id', message: 'no such run' });
      if (url.searchParams.get('format') === 'html') {
        res.setHeader('Content-Disposition', `attachment; filename="stocklab-live-${run.id}.html"`);
        return send(res, 200, 'text/html; charset=utf-8', exportedRun(assets, run));
      }
      res.setHeader('Content-Disposition', `attachment; filename="stocklab-live-${run.id}.json"`);
      return json(res, 200, run);
    },
    'GET /events': (req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      res.write(`data: ${JSON.stringify({ type: 'faults', faults: faults.marks() } satisfies LiveEvent)}\n\n`);
      clients.add(res);
      clearTimeout(goneTimer);
      req.on('close', () => {
        clients.delete(res);
        // The page closed: nothing it started may stay broken.
        if (clients.size === 0) goneTimer = setTimeout(() => void faults.healAll(), PAGE_GONE_MS);
      });
    },
    'POST /api/race': async (req, res) => {
      const settings = parseRace(await readJson(req), { maxRequests: config.maxRequests, strategies: strategies.map((s) => s.name) });
      if (racing) throw new InputError(409, 'race_running', 'a race is running; wait for it to end', 'race');
      if (settings.freezeHolder && !servers.instances[0]?.stoppedItself)
        throw new InputError(
          400,
          'bad_request',
          'freezeHolder needs the native cluster (npm run live): its instances run with the fault hooks, these do not',
          'freezeHolder',
        );
      if (settings.cutHolder && !(servers.network.layout && servers.instances[0]?.stoppedItself))
        throw new InputError(400, 'bad_request', NEEDS_HOSTS, 'cutHolder');
      if (settings.rttMs !== undefined && !servers.network.delayable) throw new InputError(400, 'bad_request', NEEDS_LINKS, 'rttMs');
      const strategy = strategies.find((s) => s.name === settings.strategy) as StrategyInfo;
      // its stock is read where it deducts: refused before the race rather than failing after it
      if (strategy.stores[0] === 'postgres' && !servers.info.postgres)
        throw new InputError(400, 'bad_request', `${strategy.name} deducts from PostgreSQL, and this lab's cluster records no PostgreSQL address`, 'strategy');
      racing = true;
      if (settings.rttMs !== undefined) rttBefore = servers.network.rttMs();
      json(res, 202, { ok: true, started: true });
      try {
        const run = await runRace(settings, strategy, { servers, faults, maxSeconds: config.maxSeconds, emit });
        runs.unshift(run);
        runs.length = Math.min(runs.length, RUNS_KEPT);
      } catch (err) {
        emit({ type: 'failed', message: (err as Error).message });
      } finally {
        rttBefore = undefined;
        racing = false;
      }
    },
    'POST /api/fault': async (req, res) => {
      const result = await fault(parseWith(faultSchema, await readJson(req)));
      json(res, 200, { ok: true, result, faults: faults.marks() });
    },
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      try {
        checkHost(req, behindPublishedPort ? undefined : (server.address() as AddressInfo).port);
        if (req.method === 'OPTIONS') throw new InputError(403, 'no_cross_origin', 'cross-origin requests are refused', 'Origin');
        const route = routes[`${req.method} ${url.pathname}`];
        if (!route) throw new InputError(404, 'not_found', `no route ${req.method} ${url.pathname}`);
        if (req.method !== 'GET') checkToken(req, token);
        await route(req, res, url);
      } catch (err) {
        if (res.headersSent) return;
        if (err instanceof InputError) json(res, err.status, { ok: false, error: err.error, message: err.message, ...(err.field && { field: err.field }) });
        else if (err instanceof FaultError) json(res, 409, { ok: false, error: 'fault_refused', message: err.message, field: 'target' });
        else json(res, 500, { ok: false, error: 'internal', message: (err as Error).message });
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, config.host, resolve);
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/`,
    token,
    async close() {
      for (const c of clients) c.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      clearTimeout(goneTimer);
      await faults.healAll();
      // closed during a race at its own round trip (Ctrl-C): the process may end before the race does
      if (servers.network.delayable && rttBefore !== undefined) await retime(servers.network, rttBefore, emit);
    },
  };
}

/** The catalog's strategies, their human text in every language: GET /strategies once per language. */
async function fetchStrategies(instance: string): Promise<StrategyInfo[]> {
  const [first, ...others] = await Promise.all(LANGS.map(async (lang) => ({ lang, strategies: await strategiesIn(instance, lang) })));
  if (!first) return [];
  const text = (name: string, field: 'course' | 'description') =>
    Object.fromEntries([first, ...others].map(({ lang, strategies }) => [lang, strategies.find((s) => s.name === name)?.[field] ?? ''])) as Bilingual;
  return first.strategies.map(({ name, family, expected, stores, fencing }) => ({
    name,
    family,
    course: text(name, 'course'),
    description: text(name, 'description'),
    expected: {
      oneInstance: expected.oneInstance,
      threeInstances: expected.threeInstances,
      ...(expected.workOverTtl && { workOverTtl: expected.workOverTtl }),
      ...(expected.note && { note: expected.note }),
    },
    stores,
    ...(fencing && { fencing }),
  }));
}

/** GET /strategies as the service answers it in one language. */
type StrategyAnswer = Omit<StrategyInfo, 'course' | 'description'> & { course: string; description: string };

async function strategiesIn(instance: string, lang: Lang): Promise<StrategyAnswer[]> {
  const res = await fetch(`${instance}/strategies?lang=${lang}`);
  if (!res.ok) throw new Error(`GET /strategies?lang=${lang}: ${res.status}`);
  return ((await res.json()) as { strategies: StrategyAnswer[] }).strategies;
}

const isLoopback = (host: string) => host === '127.0.0.1' || host === 'localhost' || host === '::1';

/**
 * DNS rebinding: a page on another name that resolves to 127.0.0.1 sends its own Host. The name is
 * what defeats it; the port is checked too where it is known (undefined: any).
 */
function checkHost(req: http.IncomingMessage, port: number | undefined): void {
  // Stryker disable next-line StringLiteral: a missing Host is refused whatever string stands for it (no placeholder matches the loopback pattern)
  const m = /^(127\.0\.0\.1|localhost):(\d+)$/.exec(req.headers.host ?? '');
  if (!m || (port !== undefined && Number(m[2]) !== port))
    throw new InputError(421, 'unknown_host', 'Host must be 127.0.0.1 or localhost with this port', 'Host');
}

function checkToken(req: http.IncomingMessage, token: string): void {
  // Stryker disable next-line StringLiteral: a missing header is refused whatever string stands for it, as long as it is not the random 32-character token
  const given = Buffer.from(String(req.headers[TOKEN_HEADER] ?? ''));
  const wanted = Buffer.from(token);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted))
    throw new InputError(403, 'bad_token', `the ${TOKEN_HEADER} header must carry the page's token`, TOKEN_HEADER);
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  if (!String(req.headers['content-type'] ?? '').startsWith('application/json'))
    throw new InputError(415, 'json_only', 'send application/json', 'content-type');
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > BODY_LIMIT) throw new InputError(413, 'too_large', `the body may be ${BODY_LIMIT} bytes at most`, 'body');
    chunks.push(c);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new InputError(400, 'bad_json', 'the body is not JSON', 'body');
  }
}

const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:",
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

function send(res: http.ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, ...SECURITY_HEADERS });
  res.end(body);
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));
}
