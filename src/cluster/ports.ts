// Loopback port helpers: is a port free, wait until it is, and pick free ones for tests.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
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
    // Claimed before it is probed: the probe binds the port for a moment, and a port another
    // process claimed may be the one its server is binding just then.
    if (picked.has(p) || !claimPort(p)) continue;
    if (await isPortFree(p)) picked.add(p);
    else unclaimPort(p);
  }
  return [...picked];
}

/**
 * Processes picking ports at once (the suite's workers booting clusters side by side) could pick
 * the same free port before either binds it: seen in CI as a forwarder's EADDRINUSE. So a picked
 * port is claimed, a file created exclusively in a folder every process shares, and no process
 * picks a port claimed in the last CLAIM_MS. A port is claimed before it is probed too: the probe
 * (isPortFree) binds it for a moment, and when another process's server bound its claimed port in
 * that moment the server failed (CI again, a forwarder's EADDRINUSE). Ten minutes, not one, so a
 * slow boot keeps its ports; that holds a few hundred claims at most out of the range's thousands.
 */
const CLAIMS = path.join(os.tmpdir(), 'stocklab-port-claims');
const CLAIM_MS = 10 * 60_000;

/** Gives up this process's claim on `port` (it was not free after all). */
function unclaimPort(port: number): void {
  fs.rmSync(path.join(CLAIMS, String(port)), { force: true });
}

/** True when this process now holds the claim on `port`; false when one was claimed within CLAIM_MS. */
export function claimPort(port: number): boolean {
  fs.mkdirSync(CLAIMS, { recursive: true });
  const file = path.join(CLAIMS, String(port));
  const create = () => {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
  };
  if (create()) return true;
  try {
    if (Date.now() - fs.statSync(file).mtimeMs < CLAIM_MS) return false;
    fs.rmSync(file, { force: true }); // an old claim: its port was bound or given up long ago
  } catch {
    return false;
  }
  return create();
}
