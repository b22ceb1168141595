// Safe defaults and honest status codes, checked on the shared cluster (nginx and one instance):
// the reset takes only a JSON body, nginx answers only its own Host names, HEAD sells nothing, a
// wrong method is a 405, body-parser's refusals keep their 4xx, an unknown or too-small parameter
// is a 400, expected 503s are counted on /metrics instead of logged, and a reset moves the version on.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { resetStock } from '../../src/load/race.js';
import { unitsLeft } from '../../src/cluster/stores.js';
import { DependencyDownError } from '../../src/dependency.js';
import { ALLOWED_ANSWERS } from '../../src/http/answers.js';
import { describeError, INTERNAL_MESSAGE } from '../../src/http/errors.js';
import { pollUntil } from '../../src/time.js';
import { stockLockKey } from '../support/redis-helpers.js';
import { sharedCluster } from '../support/cluster.js';

const cluster = sharedCluster();
const instance = cluster.instances[0]!;

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: Record<string, unknown>;
}

/** One request over a fresh connection, with exactly the headers given (fetch will not send a foreign Host). */
function request(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers, agent: false, timeout: 20_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(text) as Record<string, unknown>;
        } catch {
          // not JSON (HEAD, /metrics): the test looks at `text`
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url}`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}

const post = (url: string, contentType: string | undefined, body?: string | Buffer, headers: Record<string, string> = {}) =>
  request(url, { method: 'POST', headers: { ...(contentType && { 'content-type': contentType }), ...headers }, body });

const left = () => unitsLeft(cluster, 'mysql');

/** One counter of GET /metrics, by its labels in the order the service writes them; 0 when absent. */
async function counter(base: string, labels: Record<string, string>): Promise<number> {
  const text = (await request(`${base}/metrics`)).text;
  const set = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  const line = text.split('\n').find((l) => l.startsWith(`stocklab_answers_total{${set}} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('POST /stock/reset', () => {
  it('refuses a body that is not JSON (a form, text/plain) with a 415 naming content-type, and changes nothing', async () => {
    await resetStock(cluster.nginx, 17);
    for (const [type, body] of [
      ['text/plain', '{"count":3}'],
      ['application/x-www-form-urlencoded', 'count=3'],
      [undefined, '{"count":3}'],
    ] as const) {
      const r = await post(`${cluster.nginx}/stock/reset`, type, body);
      expect(r.status, String(type)).toBe(415);
      expect(r.json, String(type)).toMatchObject({ ok: false, error: 'unsupported_media_type', param: 'content-type' });
    }
    expect(await left()).toBe(17);
  });

  it('refuses a JSON reset without a body (400 naming body) instead of resetting to 5000', async () => {
    await resetStock(cluster.nginx, 18);
    for (const body of [undefined, '']) {
      const r = await post(`${cluster.nginx}/stock/reset`, 'application/json', body);
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ ok: false, error: 'bad_request', param: 'body' });
    }
    expect(await left()).toBe(18);
  });

  it("keeps body-parser's 4xx: 413 for 5 kB, 415 for an unknown encoding or charset, 400 for bad JSON", async () => {
    await resetStock(cluster.nginx, 19);
    const big = JSON.stringify({ count: 3, pad: 'x'.repeat(5_000) });
    const cases: [string, Promise<Reply>, number, string, string][] = [
      ['5 kB', post(`${cluster.nginx}/stock/reset`, 'application/json', big), 413, 'payload_too_large', 'body'],
      [
        'encoding',
        post(`${cluster.nginx}/stock/reset`, 'application/json', '{"count":3}', { 'content-encoding': 'compress' }),
        415,
        'unsupported_media_type',
        'content-encoding',
      ],
      ['charset', post(`${cluster.nginx}/stock/reset`, 'application/json; charset=latin1', '{"count":3}'), 415, 'unsupported_media_type', 'content-type'],
      ['bad JSON', post(`${cluster.nginx}/stock/reset`, 'application/json', '{"count":'), 400, 'bad_request', 'body'],
    ];
    for (const [name, reply, status, error, param] of cases) {
      const r = await reply;
      expect(r.status, name).toBe(status);
      expect(r.json, name).toEqual({ ok: false, error, param, message: expect.any(String), ...(r.json.valid !== undefined && { valid: r.json.valid }) });
    }
    expect(await left()).toBe(19);
  });

  it('counts a request whose client went away mid-body as a 400, not a 500', async () => {
    const labels = { route: '/stock/reset', status: '400', error: 'request_aborted' };
    const before = await counter(instance, labels);
    const { hostname, port } = new URL(instance);
    const sock = net.connect({ host: hostname, port: Number(port) });
    await new Promise<void>((resolve, reject) => sock.once('connect', resolve).once('error', reject));
    sock.write('POST /stock/reset HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"count":');
    await new Promise((r) => setTimeout(r, 200));
    sock.destroy();
    await pollUntil(async () => (await counter(instance, labels)) > before, 5_000, 50);
    expect(await counter(instance, labels)).toBe(before + 1);
    expect(await counter(instance, { route: '/stock/reset', status: '500', error: 'internal' })).toBe(0);
  });

  it('moves the version on instead of zeroing it (no ABA for sql-optimistic)', async () => {
    const conn = await mysql.createConnection({ ...cluster.mysql });
    const version = async () => {
      const [rows] = await conn.query("SELECT version FROM db_stock WHERE product_code = '1001' AND stock_code = '001'");
      return Number((rows as { version: unknown }[])[0]?.version);
    };
    try {
      await resetStock(cluster.nginx, 20);
      const before = await version();
      await resetStock(cluster.nginx, 20);
      const after = await version();
      expect(after).toBe(before + 1);
      expect(after).toBeGreaterThan(0);
    } finally {
      await conn.end();
    }
  });
});

describe('nginx', () => {
  const { port } = new URL(cluster.nginx);

  it('refuses a foreign Host (DNS rebinding) with a 421 naming Host, before any instance sells', async () => {
    await resetStock(cluster.nginx, 21);
    for (const host of ['evil.example', `evil.example:${port}`, 'localhost.evil.example', '127.0.0.2']) {
      const r = await request(`${cluster.nginx}/check/lock?strategy=sql-update`, { headers: { host } });
      expect(r.status, host).toBe(421);
      expect(r.json, host).toMatchObject({ ok: false, error: 'unknown_host', param: 'Host' });
    }
    expect(await left()).toBe(21);
  });

  it('answers its own names, with or without the port, in any case', async () => {
    for (const host of ['localhost', `localhost:${port}`, '127.0.0.1', `127.0.0.1:${port}`, `LOCALHOST:${port}`]) {
      expect((await request(`${cluster.nginx}/noop`, { headers: { host } })).status, host).toBe(200);
    }
  });

  it('does not tell its version', async () => {
    expect((await request(`${cluster.nginx}/noop`)).headers.server).toBe('nginx');
    expect((await request(`${cluster.nginx}/noop`, { headers: { host: 'evil.example' } })).headers.server).toBe('nginx');
  });
});

describe('methods', () => {
  it('HEAD /check/lock sells nothing: 405 with Allow: GET', async () => {
    await resetStock(cluster.nginx, 22);
    for (const base of [cluster.nginx, instance]) {
      const r = await request(`${base}/check/lock?strategy=sql-update`, { method: 'HEAD' });
      expect(r.status).toBe(405);
      expect(r.headers.allow).toBe('GET');
    }
    expect(await left()).toBe(22);
  });

  it('a wrong method on a known route is a 405 naming the allowed ones; an unknown path stays a 404', async () => {
    for (const [method, route, allow] of [
      ['DELETE', '/stock', 'GET, HEAD'],
      ['POST', '/check/lock', 'GET'],
      ['GET', '/stock/reset', 'POST'],
      ['PUT', '/metrics', 'GET, HEAD'],
      ['OPTIONS', '/check/lock', 'GET'],
    ] as const) {
      const r = await request(`${cluster.nginx}${route}`, { method });
      expect(r.status, `${method} ${route}`).toBe(405);
      expect(r.headers.allow, `${method} ${route}`).toBe(allow);
      expect(r.json, `${method} ${route}`).toMatchObject({ ok: false, error: 'method_not_allowed', param: 'method', valid: allow.split(', ') });
    }
    expect((await request(`${cluster.nginx}/stock`, { method: 'HEAD' })).status).toBe(200);
    const unknown = await request(`${cluster.nginx}/nope`, { method: 'DELETE' });
    expect([unknown.status, unknown.json.error]).toEqual([404, 'not_found']);
  });
});

describe('GET /check/lock parameters', () => {
  it('refuses an unknown parameter, a typo of a known one included, naming it, and sells nothing', async () => {
    await resetStock(cluster.nginx, 23);
    const r = await request(`${cluster.nginx}/check/lock?strategy=sql-update&workms=100`);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ ok: false, error: 'bad_request', param: 'workms', valid: expect.arrayContaining(['workMs', 'retryMs']) });
    expect(r.json.message).toContain('workMs');
    expect(await left()).toBe(23);
  });

  it('refuses retryMs below 5 ms, naming it, and takes 5', async () => {
    await resetStock(cluster.nginx, 24);
    for (const retryMs of ['1', '4']) {
      const r = await request(`${cluster.nginx}/check/lock?strategy=redis-setnx&retryMs=${retryMs}`);
      expect(r.status, retryMs).toBe(400);
      expect(r.json.param, retryMs).toBe('retryMs');
    }
    expect(await left()).toBe(24);
    expect((await request(`${cluster.nginx}/check/lock?strategy=redis-setnx&retryMs=5`)).status).toBe(200);
    expect(await left()).toBe(23);
  });
});

describe('error bodies', () => {
  it('a 500 says internal with a fixed message, no driver text', () => {
    const driver = Object.assign(new Error("ER_ACCESS_DENIED_ERROR: Access denied for user 'stocklab'@'127.0.0.1'"), { code: 'ER_ACCESS_DENIED_ERROR' });
    expect(describeError(driver)).toEqual({ status: 500, body: { ok: false, error: 'internal', message: INTERNAL_MESSAGE } });
  });

  it("a 503 keeps its code and says what it means, not the driver's message", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:13306'), { code: 'ECONNREFUSED' });
    const mysqlDown = describeError(new DependencyDownError('mysql', refused));
    expect(mysqlDown.status).toBe(503);
    expect(mysqlDown.body.error).toBe('mysql_unavailable');
    expect(mysqlDown.body.message).toBe(ALLOWED_ANSWERS.find((a) => a.error === 'mysql_unavailable')?.meaning);
    expect(describeError(refused).body).toMatchObject({ error: 'dependency_unavailable' });
    expect(JSON.stringify(describeError(refused).body)).not.toContain('13306');
  });
});

describe('GET /check/lock?waitUntil', () => {
  it('ends a wait for a held lock at waitUntil, long before waitMs: 503 lock_timeout, nothing sold', async () => {
    await resetStock(cluster.nginx, 25);
    const redis = new Redis(cluster.redis, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    try {
      await redis.set(stockLockKey('string'), 'someone-else', 'PX', 30_000);
      const t0 = Date.now();
      // waitMs 10 s (the default), waitUntil 300 ms from now: the sooner one bounds the wait
      const r = await request(`${instance}/check/lock?strategy=redis-setnx-ex&waitUntil=${t0 + 300}`);
      const ms = Date.now() - t0;
      console.log(`waitUntil 300 ms ahead, waitMs 10000: answered in ${ms} ms (bound 5000)`);
      expect(r.json.error).toBe('lock_timeout');
      expect(r.status).toBe(503);
      expect(ms).toBeLessThan(5_000);
    } finally {
      await redis.del(stockLockKey('string'));
      redis.disconnect();
    }
    expect(await left()).toBe(25);
  });
});

describe('GET /metrics', () => {
  it('counts expected 503s per strategy instead of logging them, and counts the sales', async () => {
    const timeout = { route: '/check/lock', strategy: 'redis-setnx-ex', status: '503', error: 'lock_timeout' };
    const sold = { route: '/check/lock', strategy: 'sql-update', status: '200' };
    const [timeoutsBefore, soldBefore] = [await counter(instance, timeout), await counter(instance, sold)];
    const logFile = path.join(cluster.dir, 'logs', `app-${new URL(instance).port}.log`);
    const logBefore = fs.statSync(logFile).size;

    await resetStock(cluster.nginx, 25);
    // Someone else holds the stock's lock: each request gives up at once (waitMs=0), a 503 lock_timeout.
    const redis = new Redis(cluster.redis, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    try {
      await redis.set(stockLockKey('string'), 'someone-else', 'PX', 30_000);
      for (let i = 0; i < 3; i++) {
        const r = await request(`${instance}/check/lock?strategy=redis-setnx-ex&waitMs=0`);
        expect(r.status).toBe(503);
        expect(r.json).toEqual({ ok: false, error: 'lock_timeout', message: ALLOWED_ANSWERS.find((a) => a.error === 'lock_timeout')?.meaning });
      }
    } finally {
      await redis.del(stockLockKey('string'));
      redis.disconnect();
    }
    expect((await request(`${instance}/check/lock?strategy=sql-update`)).status).toBe(200);

    const metrics = await request(`${instance}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(metrics.text).toContain('# TYPE stocklab_answers_total counter');
    expect(await counter(instance, timeout)).toBe(timeoutsBefore + 3);
    expect(await counter(instance, sold)).toBe(soldBefore + 1);
    // The instance logs at warn in the tests, the level the 503s used to be logged at: none was.
    const logged = fs.readFileSync(logFile).subarray(logBefore).toString('utf8');
    expect(logged).not.toContain('lock_timeout');
  });
});
