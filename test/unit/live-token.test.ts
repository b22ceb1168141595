// The live lab's token guard (live/http.ts), over plain HTTP: a request that changes state is
// refused without the token its page was given, and let through with it. The lab server runs in
// this process against a stand-in instance that only lists strategies, so no cluster is needed and
// nothing is ever raced or faulted: the requests that pass the guard are a heal of nothing and a
// race refused for its body. The browser project drives the same guard from the real page.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterInfo } from '../../src/cluster/cluster.js';
import { startLiveServer, TOKEN_HEADER, type LiveServer } from '../../live/http.js';
import { network } from '../../src/net/network.js';
import type { LabServers, Proc } from '../../live/servers.js';

/** A server the lab could fault; no test here asks it to, so every step refuses loudly. */
const untouchable = (name: string): Proc => {
  const never = async (): Promise<never> => {
    throw new Error(`${name} must not be touched by the token tests`);
  };
  return { name, isUp: async () => true, freeze: never, resume: never, kill: never, start: never };
};

/** An instance that answers only GET /strategies (what the lab reads at start). */
function standInInstance(): Promise<http.Server> {
  const strategy = {
    name: 'sql-update',
    family: 'sql',
    course: '§1',
    description: 'one statement',
    expected: { oneInstance: 'exact', threeInstances: 'exact' },
    stores: ['mysql'],
  };
  const server = http.createServer((req, res) => {
    const ok = req.method === 'GET' && (req.url ?? '').startsWith('/strategies');
    res.writeHead(ok ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { strategies: [strategy] } : { error: 'not_found' }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let instance: http.Server;
let live: LiveServer;

beforeAll(async () => {
  instance = await standInInstance();
  live = await startLiveServer(labServers(), { host: '127.0.0.1', port: 0, maxRequests: 100, maxSeconds: 10 }, { script: '', style: '' }, 0);
});

/** The lab's view of a cluster: the stand-in instance, and servers it must never touch. */
function labServers(): LabServers {
  const base = `http://127.0.0.1:${(instance.address() as AddressInfo).port}`;
  const info: ClusterInfo = {
    dir: '',
    nginx: base,
    instances: [base],
    mysql: { host: '127.0.0.1', port: 0, user: '', password: '', database: '' },
    redis: '',
    redlock: [],
    zookeeper: '',
  };
  return { info, network: network({}), topology: 'single', instances: [untouchable('app-0')], redlock: [], zookeeper: untouchable('zookeeper') };
}

afterAll(async () => {
  await live?.close();
  await new Promise<void>((resolve) => (instance ? instance.close(() => resolve()) : resolve()));
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(new URL(path, live.url), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('the live lab refuses a state-changing POST without its token', () => {
  it('a fault request with no token: 403 bad_token, naming the header', async () => {
    const res = await post('/api/fault', { action: 'heal-all' });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ ok: false, error: 'bad_token', field: TOKEN_HEADER });
  });

  it('a fault request with a wrong token of the right length, or the token elsewhere than its header: 403', async () => {
    const wrong = live.token.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'));
    expect((await post('/api/fault', { action: 'heal-all' }, { [TOKEN_HEADER]: wrong })).status).toBe(403);
    expect((await post(`/api/fault?token=${live.token}`, { action: 'heal-all' }, { authorization: `Bearer ${live.token}` })).status).toBe(403);
  });

  it('a race request with no token is refused for the token before its body is read', async () => {
    const res = await post('/api/race', { not: 'a race' });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'bad_token' });
  });
});

describe('the live lab accepts the same POSTs with its token', () => {
  it('the page it serves carries the token', async () => {
    expect(await (await fetch(live.url)).text()).toContain(`<meta name="live-token" content="${live.token}">`);
  });

  it('a fault request with the token: 200 (a heal of nothing)', async () => {
    const res = await post('/api/fault', { action: 'heal-all' }, { [TOKEN_HEADER]: live.token });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, result: { healed: true }, faults: [] });
  });

  it('a race request with the token passes the guard: refused for its body (400), not for the token', async () => {
    const res = await post('/api/race', { not: 'a race' }, { [TOKEN_HEADER]: live.token });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ ok: false, error: 'bad_request' });
    const state = (await (await fetch(new URL('/api/state', live.url))).json()) as { racing: boolean };
    expect(state.racing).toBe(false);
  });

  it('reading needs no token', async () => {
    expect((await fetch(new URL('/api/state', live.url))).status).toBe(200);
  });
});

/** A request with a Host header of our choosing (fetch sets its own): status and JSON body. */
function requestWithHost(method: string, path: string, host: string, server: LiveServer = live): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname: url.hostname, port: url.port, method, path, headers: { host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : {} }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the live lab answers only to its own loopback name and port (DNS rebinding)', () => {
  const port = () => new URL(live.url).port;
  const unknownHost = { ok: false, error: 'unknown_host', field: 'Host' };

  it('127.0.0.1 and localhost with its port are served', async () => {
    expect((await requestWithHost('GET', '/api/state', `127.0.0.1:${port()}`)).status).toBe(200);
    expect((await requestWithHost('GET', '/api/state', `localhost:${port()}`)).status).toBe(200);
  });

  it('another name, even one ending or starting like a loopback one: 421 unknown_host, saying what is accepted', async () => {
    for (const host of [`evil.example:${port()}`, `evil-localhost:${port()}`, `127.0.0.1:${port()}.evil.example`, `localhost:${port()}x`]) {
      const { status, body } = await requestWithHost('GET', '/api/state', host);
      expect(status, host).toBe(421);
      expect(body, host).toMatchObject(unknownHost);
      expect(body.message, host).toMatch(/127\.0\.0\.1 or localhost/);
    }
  });

  it('the right name with another port: 421 (a page served from another local port)', async () => {
    const other = String(Number(port()) === 65_535 ? 1 : Number(port()) + 1);
    expect(await requestWithHost('GET', '/api/state', `127.0.0.1:${other}`)).toMatchObject({ status: 421, body: unknownHost });
  });

  it('no Host header at all (HTTP/1.0): 421', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port()), '127.0.0.1', () => socket.end('GET /api/state HTTP/1.0\r\n\r\n'));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (c: string) => (text += c));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.\d 421 /);
    expect(answer).toContain('"error":"unknown_host"');
  });
});

describe('the live lab refuses cross-origin preflights and names unknown routes', () => {
  it('OPTIONS (a cross-origin preflight): 403 no_cross_origin, naming Origin', async () => {
    const res = await fetch(new URL('/api/fault', live.url), { method: 'OPTIONS' });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ ok: false, error: 'no_cross_origin', field: 'Origin', message: expect.stringMatching(/cross-origin/) });
  });

  it('a route that does not exist: 404 not_found naming the method and path, before any token is asked', async () => {
    const res = await post('/api/nope', {});
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ ok: false, error: 'not_found', message: expect.stringContaining('POST /api/nope') });
  });

  it('the token refusal names the header it wants', async () => {
    const body = (await (await post('/api/fault', { action: 'heal-all' })).json()) as { message: string };
    expect(body.message).toContain(TOKEN_HEADER);
  });
});

describe("behind a published port (a container: listening beyond loopback), the Host port is not the lab's to check", () => {
  it('any port with a loopback name is served; another name still is not', async () => {
    // 127.0.0.2 is loopback to the kernel but not one of the names the lab treats as local, as 0.0.0.0 in a container is not.
    const published = await startLiveServer(labServers(), { host: '127.0.0.2', port: 0, maxRequests: 100, maxSeconds: 10 }, { script: '', style: '' }, 0);
    try {
      const own = new URL(published.url);
      const at = { ...published, url: `http://127.0.0.2:${own.port}/` };
      expect((await requestWithHost('GET', '/api/state', 'localhost:8080', at)).status).toBe(200);
      expect((await requestWithHost('GET', '/api/state', 'evil.example:8080', at)).status).toBe(421);
    } finally {
      await published.close();
    }
  });
});
