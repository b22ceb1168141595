// Shared by the test/redis-*.test.ts files: requests that keep their answers' bodies, the stock
// lock's keys, and a wait for a lock key to appear.
import type { Redis } from 'ioredis';
import { checkUrl } from '../../src/load/race.js';
import { expiryValueLockKey, hashLockKey, stringLockKey } from '../../src/locks/redis/keys.js';
import { STOCK_LOCK_RESOURCE } from '../../src/stock/product.js';
import { pollUntil } from '../../src/time.js';
import { getJson } from './lock-helpers.js';

export interface Answer {
  status: number;
  error?: string;
  warning?: string;
}

/** One GET /check/lock (the bench's URL), its answer kept. */
export async function check(base: string, strategy: string, params: Record<string, number> = {}): Promise<Answer> {
  const { status, body } = await getJson(checkUrl(base, strategy, undefined, params));
  return { status, error: body.error as string | undefined, warning: body.warning as string | undefined };
}

/** `total` requests, `concurrency` at a time, every answer kept (autocannon drops the bodies). */
export async function checkMany(base: string, strategy: string, params: Record<string, number>, total: number, concurrency: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  let started = 0;
  const worker = async () => {
    while (started < total) {
      started++;
      answers.push(await check(base, strategy, params));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return answers;
}

export const count = <T>(items: T[], pick: (item: T) => boolean): number => items.filter(pick).length;

/** The stock lock's key for the string-valued (SETNX family) or hash (reentrant family) locks. */
export const stockLockKey = (kind: 'string' | 'expiry-value' | 'hash'): string =>
  kind === 'string' ? stringLockKey(STOCK_LOCK_RESOURCE) : kind === 'expiry-value' ? expiryValueLockKey(STOCK_LOCK_RESOURCE) : hashLockKey(STOCK_LOCK_RESOURCE);

/** Resolves once `key` exists on `redis`: a request has taken the lock. */
export async function untilKeyExists(redis: Redis, key: string, timeoutMs = 10_000): Promise<void> {
  const appeared = await pollUntil(async () => (await redis.exists(key)) > 0, timeoutMs, 10);
  if (!appeared) throw new Error(`${key} never appeared`);
}
