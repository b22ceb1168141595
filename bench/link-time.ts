// One request's round trip to MySQL (SELECT 1) and to Redis (PING), timed on one open connection,
// as a client of the cluster sees it: what a delayed link costs, and what a forwarder costs at 0.
// That cost is a few tens of µs, less than the drift between two runs a second apart, so it is
// measured as a pair: the direct link and the forwarded one in turn, request by request.
import { performance } from 'node:perf_hooks';
import { createConnection } from 'mysql2/promise';
import { Redis } from 'ioredis';
import type { ClusterInfo } from '../src/cluster/types.js';
import { spreadOf, type Spread } from '../report/bench/stats.js';

/** Requests sent first and not counted: the first ones pay for the connection, and for a fresh forwarder process its JIT. */
const WARMUP = 100;

/** Requests timed per link (and per side of a pair). */
export const LINK_SAMPLES = 200;

async function elapsed(once: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await once();
  return performance.now() - t0;
}

/** Each request in turn on every connection given, so that what disturbs one sample disturbs its partners alike. */
async function timedInTurn(samples: number, onces: readonly (() => Promise<unknown>)[]): Promise<Spread[]> {
  for (let i = 0; i < WARMUP; i++) for (const once of onces) await once();
  const ms: number[][] = onces.map(() => []);
  for (let i = 0; i < samples; i++) for (const [j, once] of onces.entries()) ms[j]?.push(await elapsed(once));
  return ms.map(spreadOf);
}

/** SELECT 1's round trip in ms, one after the other on one connection. */
export async function mysqlRoundTrip(mysql: ClusterInfo['mysql'], samples = LINK_SAMPLES): Promise<Spread> {
  const [spread] = await mysqlRoundTrips([mysql], samples);
  return spread as Spread;
}

/** SELECT 1's round trip in ms on a connection to each address, in turn (timedInTurn). */
export async function mysqlRoundTrips(targets: readonly ClusterInfo['mysql'][], samples = LINK_SAMPLES): Promise<Spread[]> {
  const conns = await Promise.all(targets.map((t) => createConnection({ ...t, connectTimeout: 5_000 })));
  try {
    return await timedInTurn(
      samples,
      conns.map((c) => () => c.query('SELECT 1')),
    );
  } finally {
    await Promise.all(conns.map((c) => c.end()));
  }
}

/** PING's round trip in ms, one after the other on one connection. */
export async function redisRoundTrip(url: string, samples = LINK_SAMPLES): Promise<Spread> {
  const [spread] = await redisRoundTrips([url], samples);
  return spread as Spread;
}

/** PING's round trip in ms on a connection to each URL, in turn (timedInTurn). */
export async function redisRoundTrips(urls: readonly string[], samples = LINK_SAMPLES): Promise<Spread[]> {
  const clients = urls.map((url) => new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 }));
  try {
    await Promise.all(clients.map((c) => c.connect()));
    return await timedInTurn(
      samples,
      clients.map((c) => () => c.ping()),
    );
  } finally {
    for (const c of clients) c.disconnect();
  }
}
