// nginx resends a GET to the next instance when the one it chose fails after receiving it (its
// default, `proxy_next_upstream error timeout`). The deduction and the /test/ clicks commit on a
// GET, so the project's config turns that off for them. Built without racing: two stand-in
// upstreams on loopback, the first to receive the request under test drops its connection unanswered
// (as an instance that dies after applying it would), any later copy is answered and counted.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NGINX_TEMPLATE } from '../../src/cluster/nginx.js';
import { freePorts } from '../../src/cluster/ports.js';
import { startNginxWith, withoutNextUpstreamOff } from '../../faults/default-nginx.js';

/** The GETs that change state: the deduction and the /test/ clicks that commit or take something. */
const CHANGING = ['/check/lock?strategy=redis-owned', '/test/zk/atomic', '/test/zk/share/count?op=increment', '/test/countdown', '/test/write'];

/** Upstreams that answer every request with 200, except the first one for `armed`, which they drop. */
class StandInUpstreams {
  readonly received: string[] = [];
  private armed: string | undefined;
  private readonly servers: net.Server[] = [];

  async start(ports: number[]): Promise<void> {
    for (const port of ports) {
      const server = net.createServer((socket) => {
        let head = '';
        socket.on('data', (chunk: Buffer) => {
          head += chunk.toString('latin1');
          while (head.includes('\r\n\r\n')) {
            const end = head.indexOf('\r\n\r\n') + 4;
            const target = head.slice(0, end).split(' ')[1] ?? '';
            head = head.slice(end);
            if (target === '/health') {
              socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"ok":true}');
              continue;
            }
            this.received.push(target);
            if (target === this.armed) {
              this.armed = undefined;
              socket.destroy(); // applied, then gone before any answer
              return;
            }
            socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"ok":true}');
          }
        });
        socket.on('error', () => undefined);
      });
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      this.servers.push(server);
    }
  }

  /** The next request for `target` is dropped; every count starts from zero. */
  arm(target: string): void {
    this.armed = target;
    this.received.length = 0;
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

describe('nginx and a GET whose instance fails after receiving it', () => {
  const upstreams = new StandInUpstreams();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-nginx-resend-'));
  const template = fs.readFileSync(NGINX_TEMPLATE, 'utf8');
  let ports: number[];

  beforeAll(async () => {
    ports = await freePorts(2);
    await upstreams.start(ports);
  });
  afterAll(async () => {
    await upstreams.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** One request through a fresh nginx (nginx remembers a failed upstream for 10 s, so none is reused). */
  async function send(config: string, target: string): Promise<{ status: number; copies: number }> {
    const nginx = await startNginxWith(dir, `nginx-${Date.now()}`, ports, config);
    try {
      upstreams.arm(target);
      const res = await fetch(nginx.base + target, { headers: { Host: 'localhost' } });
      await res.arrayBuffer();
      return { status: res.status, copies: upstreams.received.filter((t) => t === target).length };
    } finally {
      await nginx.server.stop();
    }
  }

  it.each(CHANGING)('the project config never resends %s: the client gets 502 (outcome unknown), and one copy was sent', async (target) => {
    expect(await send(template, target)).toEqual({ status: 502, copies: 1 });
  });

  // The control: the same config without its `proxy_next_upstream off` lines applies each one twice.
  it.each(CHANGING)("nginx's default resends %s: the client gets 200, and a second copy was sent", async (target) => {
    expect(await send(withoutNextUpstreamOff(template), target)).toEqual({ status: 200, copies: 2 });
  });
});
