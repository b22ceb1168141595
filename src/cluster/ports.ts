// Loopback port helpers: is a port free, wait until it is, and pick free ones for tests.
import net from 'node:net';
import { freePortRange } from '../env.js';
import { pollUntil } from '../time.js';

export const LOOPBACK = '127.0.0.1';

/** True when nothing listens on 127.0.0.1:port (we could bind it ourselves). */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host: LOOPBACK, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/**
 * True when nothing listens on host:port. On loopback: we could bind it ourselves. Elsewhere (a
 * server's address in a namespace of its own, which this process cannot bind): nothing accepts a
 * connection there (refused, or no answer within a second).
 */
export function isPortFreeAt(host: string, port: number): Promise<boolean> {
  if (host === LOOPBACK) return isPortFree(port);
  return new Promise((resolve) => {
    const sock = net.connect({ host, port });
    const done = (free: boolean) => {
      sock.destroy();
      resolve(free);
    };
    sock.setTimeout(1_000, () => done(true));
    sock.once('connect', () => done(false));
    sock.once('error', () => done(true));
  });
}

export async function waitPortFree(port: number, timeoutMs: number, what: string, host = LOOPBACK): Promise<void> {
  const free = await pollUntil(() => isPortFreeAt(host, port), timeoutMs);
  if (!free) throw new Error(`${what}: port ${host}:${port} still in use after ${timeoutMs} ms`);
}

/**
 * `count` distinct free loopback ports, from FREE_PORTS (default 20000-32000). They are drawn below
 * Linux's ephemeral range (32768+), so an outgoing connection's local port can never take one
 * between this check and the server's bind.
 */
export async function freePorts(count: number, { min, max } = freePortRange()): Promise<number[]> {
  const picked = new Set<number>();
  for (let tries = 0; picked.size < count; tries++) {
    if (tries > count * 50) throw new Error(`could not find ${count} free ports in ${min}-${max}`);
    const p = min + Math.floor(Math.random() * (max - min));
    if (!picked.has(p) && (await isPortFree(p))) picked.add(p);
  }
  return [...picked];
}
