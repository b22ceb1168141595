// The live lab's token guard (live/http.ts), over plain HTTP: a request that changes state is
// refused without the token its page was given, and let through with it. The lab server runs in
// this process against a stand-in instance that only lists strategies, so no cluster is needed and
// nothing is ever raced or faulted: the requests that pass the guard are a heal of nothing and a
// race refused for its body. The browser project drives the same guard from the real page.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterInfo } from '../../src/cluster/cluster.js';
import { startLiveServer, TOKEN_HEADER, type LiveServer } from '../../live/http.js';
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
  const strategy = { name: 'sql-update', family: 'sql', course: '§1', description: 'one statement', expected: { oneInstance: 'exact', threeInstances: 'exact' }, stores: ['mysql'] };
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
  const base = `http://127.0.0.1:${(instance.address() as AddressInfo).port}`;
  const info: ClusterInfo = { dir: '', nginx: base, instances: [base], mysql: { host: '127.0.0.1', port: 0, user: '', password: '', database: '' }, redis: '', redlock: [], zookeeper: '' };
  const servers: LabServers = { info, topology: 'single', instances: [untouchable('app-0')], redlock: [], zookeeper: untouchable('zookeeper') };
  live = await startLiveServer(servers, { host: '127.0.0.1', port: 0, maxRequests: 100, maxSeconds: 10 }, { script: '', style: '' }, 0);
});

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
