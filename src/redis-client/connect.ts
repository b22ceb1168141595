import { Redis, type RedisOptions } from 'ioredis';
import type { ServiceConfig } from '../config.js';
import { defineLuaScripts } from './lua.js';

export interface RedisConnectOptions {
  commandTimeoutMs: number;
  /** Name shown in CLIENT LIST, handy when watching a lab run. */
  connectionName?: string;
}

/**
 * A connection that fails fast while its server is down, instead of queueing commands
 * until the server returns: a request must end in a quick 503, never hang. It keeps
 * reconnecting in the background and recovers on its own.
 */
export function connectRedis(url: string, opts: RedisConnectOptions): Redis {
  return withScripts(new Redis(url, failFast(opts)));
}

/**
 * A connection to the service's main Redis: REDIS_URL, or, with REDIS_SENTINELS, whichever server
 * the Sentinels name as master, asked again after every disconnect. That is how it follows a
 * failover: the dead master's socket closes, and a demoted one's clients are killed by Sentinel.
 *
 * Not with ioredis's `failoverDetector` (a +switch-master subscription): in ioredis 5 an announcement
 * that arrives while the client is reconnecting, between asking a Sentinel and its answer, makes
 * that connect fail with "Connection is closed." and the client end for good (status `end`, no
 * retry). A fresh clone's CI lost an instance's Redis that way in the failover scenario.
 */
export function connectMainRedis(config: Pick<ServiceConfig, 'redis'>, connectionName?: string): Redis {
  const { url, commandTimeoutMs, sentinel } = config.redis;
  const opts = failFast({ commandTimeoutMs, ...(connectionName && { connectionName }) });
  if (!sentinel) return withScripts(new Redis(url, opts));
  const password = new URL(url).password ? decodeURIComponent(new URL(url).password) : undefined;
  return withScripts(
    new Redis({
      ...opts,
      sentinels: sentinel.sentinels,
      name: sentinel.masterName,
      ...(password && { password, sentinelPassword: password }),
      sentinelRetryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    }),
  );
}

/**
 * One connection to each RedLock master, named `<instance>:<role>-<i>` in CLIENT LIST, waited for
 * up to 2 s each: a minority may be down at start (that is RedLock's point); they reconnect on their own.
 */
export async function connectRedlockMasters(config: Pick<ServiceConfig, 'redis' | 'redlock' | 'instanceId'>, role: string): Promise<Redis[]> {
  const masters = config.redlock.urls.map((url, i) =>
    connectRedis(url, { commandTimeoutMs: config.redis.commandTimeoutMs, connectionName: `${config.instanceId}:${role}-${i}` }),
  );
  await Promise.all(masters.map((c) => waitReady(c, 2_000)));
  return masters;
}

function failFast(opts: RedisConnectOptions): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: opts.commandTimeoutMs,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    connectionName: opts.connectionName,
    lazyConnect: true,
  };
}

function withScripts(client: Redis): Redis {
  // Errors surface on the commands that fail; without a listener ioredis would log each reconnect.
  client.on('error', () => undefined);
  defineLuaScripts(client);
  return client;
}

/** Waits until the connection is ready, up to `timeoutMs`; false if it is not. */
export async function waitReady(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return true;
  if (client.status === 'wait') client.connect().catch(() => undefined);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    client.once('ready', onReady);
  });
}
