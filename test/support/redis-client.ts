// A test's own Redis connection, made the way the service makes its own (the project's Lua scripts
// defined on it), and ready before the test goes on.
import type { Redis } from 'ioredis';
import { connectRedis, waitReady } from '../../src/redis-client/connect.js';

export async function openRedis(url: string): Promise<Redis> {
  const client = connectRedis(url, { commandTimeoutMs: 2_000 });
  if (!(await waitReady(client, 5_000))) throw new Error(`no Redis at ${url}`);
  return client;
}
