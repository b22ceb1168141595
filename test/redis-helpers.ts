// Shared by the test/redis-*.test.ts files: requests that keep their answers' bodies, the store
// addresses of a cluster, and a wait for a lock key to appear.
import { Redis } from 'ioredis';
import type { ClusterInfo } from '../src/cluster/cluster.js';
import type { StoreAddresses } from '../bench/stores.js';
import { hashLockKey, stringLockKey } from '../src/locks/redis/keys.js';
import { STOCK_LOCK_RESOURCE } from '../src/stock/product.js';

export interface Answer {
  status: number;
  error?: string;
  warning?: string;
}

export function storesOf(info: ClusterInfo): StoreAddresses {
  return { mysql: info.mysql, redis: info.redis };
}

export async function check(base: string, params: Record<string, string | number>): Promise<Answer> {
  const q = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]));
  const res = await fetch(`${base}/check/lock?${q}`);
  const body = (await res.json()) as { error?: string; warning?: string };
  return { status: res.status, error: body.error, warning: body.warning };
}

/** `total` requests, `concurrency` at a time, every answer kept (autocannon drops the bodies). */
export async function checkMany(base: string, params: Record<string, string | number>, total: number, concurrency: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  let started = 0;
  const worker = async () => {
    while (started < total) {
      started++;
      answers.push(await check(base, params));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return answers;
}

export const count = <T>(items: T[], pick: (item: T) => boolean): number => items.filter(pick).length;

/** The stock lock's key for the string-valued (SETNX family) or hash (reentrant family) locks. */
export const stockLockKey = (kind: 'string' | 'hash'): string =>
  kind === 'string' ? stringLockKey(STOCK_LOCK_RESOURCE) : hashLockKey(STOCK_LOCK_RESOURCE);

/** Resolves once `key` exists on `redis`: a request has taken the lock. */
export async function untilKeyExists(redis: Redis, key: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await redis.exists(key)) === 0) {
    if (Date.now() > deadline) throw new Error(`${key} never appeared`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
