// One request's round trip to MySQL (SELECT 1) and to Redis (PING), timed on one open connection,
// as a client of the cluster sees it: what a delayed link costs, and what a forwarder costs at 0.
import { performance } from 'node:perf_hooks';
import { createConnection } from 'mysql2/promise';
import { Redis } from 'ioredis';
import type { ClusterInfo } from '../src/cluster/types.js';
import { spreadOf, type Spread } from './stats.js';

/** Requests sent first and not counted: the first ones pay for the connection, and for a fresh forwarder process its JIT. */
const WARMUP = 100;

async function timed(samples: number, once: () => Promise<unknown>): Promise<Spread> {
  for (let i = 0; i < WARMUP; i++) await once();
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    await once();
    ms.push(performance.now() - t0);
  }
  return spreadOf(ms);
}

/** SELECT 1's round trip in ms, one after the other on one connection. */
export async function mysqlRoundTrip(mysql: ClusterInfo['mysql'], samples = 20): Promise<Spread> {
  const conn = await createConnection({ ...mysql, connectTimeout: 5_000 });
  try {
    return await timed(samples, () => conn.query('SELECT 1'));
  } finally {
    await conn.end();
  }
}

/** PING's round trip in ms, one after the other on one connection. */
export async function redisRoundTrip(url: string, samples = 20): Promise<Spread> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    return await timed(samples, () => client.ping());
  } finally {
    client.disconnect();
  }
}

/** A spread in ms as µs for a line of output: median (min–max). */
export function microseconds(s: Spread): string {
  const us = (ms: number) => Math.round(ms * 1000);
  return `${us(s.median)} µs (${us(s.min)}–${us(s.max)})`;
}
