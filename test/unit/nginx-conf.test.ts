// nginx's sizing and its own refusal agree with the service: enough connections and files for the
// clients the lab claims, a capacity below the instances' caps together, and a 503 body that is the
// service's busy answer naming nginx. Pure: reads the configs, starts no nginx.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadServiceConfig } from '../../src/config.js';
import { ALLOWED_ANSWERS, answerKeyOfBody, isAllowedAnswer, isRefusal } from '../../src/http/answers.js';
import { NGINX_TEMPLATE, renderNginxConf } from '../../src/cluster/nginx.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The concurrent clients the lab is measured with (npm run bench -- --ramp). */
const CLAIMED_CLIENTS = 10_000;

const number = (text: string, directive: string) => Number(new RegExp(`^\\s*${directive}\\s+(?:\\S+\\s+)?(\\d+);`, 'm').exec(text)?.[1]);

describe.each(['nginx.conf', 'compose.conf'])('nginx/%s', (file) => {
  const conf = fs.readFileSync(path.join(ROOT, 'nginx', file), 'utf8');
  const capacity = number(conf, 'limit_conn');

  it('holds the claimed clients plus an upstream connection per admitted request, in one worker, within its open-file limit', () => {
    const connections = number(conf, 'worker_connections');
    expect(connections).toBeGreaterThanOrEqual(CLAIMED_CLIENTS + capacity);
    expect(number(conf, 'worker_rlimit_nofile')).toBeGreaterThan(connections);
    expect(conf).toMatch(/^\s*listen\s+\S+\s+backlog=\d{4,};/m);
  });

  it("refuses before the instances do: its capacity is no more than one instance's cap", () => {
    expect(capacity).toBeGreaterThan(0);
    expect(capacity).toBeLessThanOrEqual(loadServiceConfig({}).maxInFlight);
    expect(conf).toMatch(/^\s*limit_conn_status 503;/m);
  });

  it('answers past its capacity with the documented 503 busy, naming nginx', () => {
    const body = /location @busy \{[^}]*return 503 '([^']+)\\n';/.exec(conf)?.[1] ?? '';
    const key = answerKeyOfBody(503, body);
    expect(key).toBe('503 busy (nginx)');
    expect(isAllowedAnswer(key) && isRefusal(key)).toBe(true);
    const documented = ALLOWED_ANSWERS.find((a) => a.layer === 'nginx');
    expect(JSON.parse(body)).toEqual({ ok: false, error: 'busy', layer: 'nginx', message: documented?.meaning });
    expect(conf).toMatch(/^\s*error_page 503 @busy;/m);
  });
});

describe('renderNginxConf', () => {
  const template = fs.readFileSync(NGINX_TEMPLATE, 'utf8');

  it('keeps the listen parameters, and sets a lower capacity and open-file limit when asked', () => {
    const conf = renderNginxConf(template, 23456, [21001], { capacity: 50, maxNofile: 4096 });
    expect(conf).toMatch(/^\s*listen 127\.0\.0\.1:23456 backlog=\d+;/m);
    expect(number(conf, 'limit_conn')).toBe(50);
    expect(number(conf, 'worker_rlimit_nofile')).toBe(4096);
    // a limit above the template's leaves it alone
    expect(number(renderNginxConf(template, 23456, [21001], { maxNofile: 1_000_000 }), 'worker_rlimit_nofile')).toBe(number(template, 'worker_rlimit_nofile'));
  });
});

describe("the service's own limits", () => {
  it('are looser than nginx in front of it', () => {
    const { server } = loadServiceConfig({});
    const conf = fs.readFileSync(NGINX_TEMPLATE, 'utf8');
    const seconds = (d: string) => Number(new RegExp(`^\\s*${d}\\s+(\\d+)s;`, 'm').exec(conf)?.[1]) * 1000;
    // every connection nginx may open to one instance: its capacity plus its idle pool, per worker
    expect(server.maxConnections).toBeGreaterThan(number(conf, 'limit_conn') + number(conf, 'worker_processes') * number(conf, 'keepalive'));
    expect(server.headersTimeoutMs).toBeGreaterThan(seconds('client_header_timeout'));
    expect(server.requestTimeoutMs).toBeGreaterThan(seconds('client_body_timeout'));
    expect(server.keepAliveTimeoutMs).toBeGreaterThan(seconds('keepalive_timeout'));
  });
});
