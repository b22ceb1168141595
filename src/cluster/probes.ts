// Health probes: one short, bounded question per server kind. Each resolves true/false, never throws.
import http from 'node:http';
import net from 'node:net';
import mysql from 'mysql2/promise';
import { LOOPBACK } from './ports.js';

/** A server's address: a port on loopback, or a host and port (a namespace's address in the hosts topology). */
export type Endpoint = number | { host: string; port: number };

function endpointOf(at: Endpoint): { host: string; port: number } {
  return typeof at === 'number' ? { host: LOOPBACK, port: at } : at;
}

/** Sends raw bytes over TCP and collects the reply until the server closes or enough has arrived. */
function tcpExchange(at: Endpoint, payload: string, done: (reply: string) => boolean, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    let reply = '';
    const sock = net.connect(endpointOf(at));
    const finish = () => {
      sock.destroy();
      resolve(reply);
    };
    sock.setTimeout(timeoutMs, finish);
    sock.once('error', finish);
    sock.once('close', finish);
    sock.once('connect', () => sock.write(payload));
    sock.on('data', (d: Buffer) => {
      reply += d.toString('utf8');
      if (done(reply)) finish();
    });
  });
}

/** PING, after AUTH when the server has a password (RESP arrays, so any password is sent as is). */
export async function redisPing(port: Endpoint, password?: string, timeoutMs = 1_000): Promise<boolean> {
  const command = (...parts: string[]) => `*${parts.length}\r\n${parts.map((p) => `$${Buffer.byteLength(p)}\r\n${p}\r\n`).join('')}`;
  const payload = (password ? command('AUTH', password) : '') + command('PING');
  const replies = password ? 2 : 1;
  const reply = await tcpExchange(port, payload, (r) => r.split('\r\n').length > replies, timeoutMs);
  return reply.split('\r\n')[replies - 1] === '+PONG';
}

/** The password in a redis:// URL, if any. */
export function redisPasswordOf(url: string): string | undefined {
  const password = new URL(url).password;
  return password ? decodeURIComponent(password) : undefined;
}

export type ZkMode = 'standalone' | 'leader' | 'follower' | 'observer';

/**
 * A ZooKeeper server's role, from the four-letter word `srvr` (whitelisted in zoo.cfg); undefined
 * while it serves no requests (an ensemble node without a quorum answers, but names no mode).
 */
export async function zkMode(port: Endpoint, timeoutMs = 1_000): Promise<ZkMode | undefined> {
  const reply = await tcpExchange(port, 'srvr', () => false, timeoutMs);
  const mode = /^Mode: (\w+)/m.exec(reply)?.[1];
  return mode === 'standalone' || mode === 'leader' || mode === 'follower' || mode === 'observer' ? mode : undefined;
}

/** Requests the ZooKeeper server has received since it started (`srvr`'s Received), all clients together. */
export async function zkPacketsReceived(port: Endpoint, timeoutMs = 1_000): Promise<number | undefined> {
  const reply = await tcpExchange(port, 'srvr', () => false, timeoutMs);
  const n = /^Received: (\d+)/m.exec(reply)?.[1];
  return n === undefined ? undefined : Number(n);
}

export async function zkServing(port: Endpoint, timeoutMs = 1_000): Promise<boolean> {
  return (await zkMode(port, timeoutMs)) !== undefined;
}

export interface HttpReply {
  status: number;
  body: string;
}

export function httpGet(url: string, timeoutMs = 2_000): Promise<HttpReply | undefined> {
  return new Promise((resolve) => {
    // agent: false — a fresh connection each time, so probes leave no keep-alive sockets behind
    const req = http.get(url, { agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
}

export async function httpOk(url: string, timeoutMs = 2_000): Promise<boolean> {
  return (await httpGet(url, timeoutMs))?.status === 200;
}

/** An app instance's GET /health (or nginx's, which passes it on to one) answers 200. */
export function healthOk(at: Endpoint, timeoutMs = 2_000): Promise<boolean> {
  const { host, port } = endpointOf(at);
  return httpOk(`http://${host}:${port}/health`, timeoutMs);
}

export interface MysqlLogin {
  /** loopback when absent */
  host?: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

/** Logs in over TCP as the lab user and runs SELECT 1, so "healthy" means the app could connect too. */
export async function mysqlPing(login: MysqlLogin, timeoutMs = 2_000): Promise<boolean> {
  let conn: mysql.Connection | undefined;
  try {
    conn = await mysql.createConnection({ host: LOOPBACK, ...login, connectTimeout: timeoutMs });
    await conn.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await conn?.end().catch(() => undefined);
  }
}
