// The lab's own look at the main Redis server, beside the instances: its process (frozen with
// SIGSTOP, run again with SIGCONT) and the stock lock's keys, read straight from the server, so a
// scenario never takes an instance's word for what Redis holds.
import { Redis } from 'ioredis';
import type { RunningCluster } from '../src/cluster/cluster.js';
import { expiryValueLockKey, fenceCounterKey, hashLockKey, stringLockKey } from '../src/locks/redis/keys.js';
import { STOCK_LOCK_RESOURCE } from '../src/stock/product.js';
import { pollUntil } from '../src/time.js';
import { isStopped } from './process-state.js';

/** Every kind of stock lock key: the SETNX family's string, the SETNX+GETSET lock's timestamp and the reentrant family's hash. */
export const STOCK_LOCK_KEYS: readonly string[] = [
  stringLockKey(STOCK_LOCK_RESOURCE),
  expiryValueLockKey(STOCK_LOCK_RESOURCE),
  hashLockKey(STOCK_LOCK_RESOURCE),
];

/** A plain client of the lab's (never one of the instances'); it fails fast rather than queue. */
export async function openRedis(cluster: RunningCluster): Promise<Redis> {
  const client = new Redis(cluster.info.redis, { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true, commandTimeout: 5_000 });
  client.on('error', () => undefined); // errors surface on the commands that fail
  await client.connect();
  return client;
}

/** The stock lock keys present now (an empty list when no lock is held or left over). */
export async function lockKeysPresent(client: Redis): Promise<string[]> {
  const found = await Promise.all(STOCK_LOCK_KEYS.map(async (k) => ((await client.exists(k)) > 0 ? k : undefined)));
  return found.filter((k): k is string => k !== undefined);
}

/**
 * The stock lock's fencing counter. Every granted acquire of a single-server Redis lock draws one
 * token from it, so its growth counts grants the server applied, answered or not.
 */
export async function fenceCount(client: Redis): Promise<bigint> {
  const raw = await client.get(fenceCounterKey(STOCK_LOCK_RESOURCE));
  return raw === null ? 0n : BigInt(raw);
}

/** The main redis-server's pid; throws when it is not running. */
export function redisPid(cluster: RunningCluster): number {
  const pid = cluster.servers.redis.pid;
  if (pid === undefined) throw new Error("the lab's redis-server is not running");
  return pid;
}

/** SIGSTOP, then waits until /proc shows it stopped: commands sent after this wait unread in its socket. */
export async function freezeRedis(pid: number): Promise<void> {
  process.kill(pid, 'SIGSTOP');
  if (!(await pollUntil(() => isStopped(pid), 2_000, 5))) throw new Error(`redis-server ${pid} did not stop after SIGSTOP`);
}
