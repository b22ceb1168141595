// What one deduction costs a strategy in messages to its servers, counted by the servers
// themselves (Redis by MONITOR, MySQL by Questions, ZooKeeper by its packet counter, etcd by its
// gRPC messages received, PostgreSQL by pg_stat_statements' calls), and each
// server's own round trip: `npm run round-trips` prints them, the round-trip sweep takes k from them.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { openEtcd } from '../src/locks/etcd/client.js';
import { CreateMode, createClient, type Client } from 'node-zookeeper-client';
import { httpGet, zkPacketsReceived } from '../src/cluster/probes.js';
import type { ClusterInfo } from '../src/cluster/types.js';
import type { Counters } from '../report/bench/sweep-results.js';

/**
 * Counts the commands clients send to a Redis server, by MONITOR: INFO's command counter would
 * also count the commands a Lua script runs inside the server, which cost no round trip.
 */
class RedisSentCounter {
  count = 0;
  private constructor(private readonly client: Redis) {}

  static async start(url: string): Promise<RedisSentCounter> {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await client.connect();
    const monitor = await client.monitor();
    const counter = new RedisSentCounter(monitor);
    monitor.on('monitor', (_time: string, _args: string[], source: string) => {
      if (source !== 'lua') counter.count++;
    });
    client.disconnect();
    return counter;
  }

  stop(): number {
    this.client.disconnect();
    return this.count;
  }
}

async function mysqlQuestions(info: ClusterInfo): Promise<number> {
  const conn = await createConnection({ ...info.mysql, connectTimeout: 5_000 });
  try {
    const [rows] = await conn.query("SHOW GLOBAL STATUS LIKE 'Questions'");
    return Number((rows as { Value: string }[])[0]?.Value ?? NaN);
  } finally {
    await conn.end();
  }
}

/** A Prometheus counter's value summed over all its labels, from a /metrics page. */
export function metricSum(page: string, name: string): number {
  const line = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'gm');
  let sum = 0;
  for (const m of page.matchAll(line)) sum += Number(m[1]);
  return sum;
}

/** etcd's /metrics page (plain HTTP on its client URL). */
export async function etcdMetrics(info: ClusterInfo): Promise<string> {
  if (!info.etcd) return '';
  const reply = await httpGet(`${info.etcd}/metrics`, 5_000);
  if (reply?.status !== 200) throw new Error(`etcd /metrics: ${reply?.status ?? 'no answer'}`);
  return reply.body;
}

/** Every gRPC message etcd has received from its clients (a unary call is one; each keep-alive or watch request on a stream, one). */
async function etcdMessages(info: ClusterInfo): Promise<number> {
  return info.etcd ? metricSum(await etcdMetrics(info), 'grpc_server_msg_received_total') : 0;
}

/**
 * Statements PostgreSQL has run (BEGIN and COMMIT included), all clients together, by the
 * pg_stat_statements extension (loaded at start; created here on first use). Returns the total and
 * how many statements this reading itself added.
 */
async function postgresStatements(info: ClusterInfo): Promise<number> {
  const login = info.postgres;
  if (!login) return 0;
  const client = new pg.Client({ ...login, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const r = await client.query<{ n: string }>('SELECT COALESCE(SUM(calls), 0)::text AS n FROM pg_stat_statements');
    return Number(r.rows[0]?.n ?? NaN);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The counters MySQL, ZooKeeper, etcd and PostgreSQL keep (Redis is counted as it goes, by MONITOR). */
async function read(info: ClusterInfo): Promise<Pick<Counters, 'mysql' | 'zookeeper' | 'etcd' | 'postgres'>> {
  const zkPorts = info.zookeeper.split(',').map((h) => Number(h.split(':')[1]));
  const [mysql, zookeeper, etcd, postgres] = await Promise.all([
    mysqlQuestions(info),
    Promise.all(zkPorts.map((p) => zkPacketsReceived(p))).then((n) => n.reduce<number>((a, b) => a + (b ?? 0), 0)),
    etcdMessages(info),
    postgresStatements(info),
  ]);
  return { mysql, zookeeper, etcd, postgres };
}

/** Statements one reading of postgresStatements adds to the count (its CREATE EXTENSION and SELECT). */
const POSTGRES_READING_STATEMENTS = 2;

/** k: the round trips in one sale's serial path: each server's messages, the RedLock masters' counted once (they are asked in parallel). */
export function kOf(counts: Counters, masters: number): number {
  return counts.redis + counts.redlock / Math.max(1, masters) + counts.mysql + counts.zookeeper + (counts.etcd ?? 0) + (counts.postgres ?? 0);
}

export const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function deduct(base: string, strategy: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(`${base}/check/lock?strategy=${encodeURIComponent(strategy)}`, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
  });
}

async function reset(base: string, count: number): Promise<void> {
  const res = await fetch(`${base}/stock/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count }) });
  if (!res.ok) throw new Error(`reset: ${res.status}`);
}

/** Messages per sale for `requests` deductions at `concurrency`; the counting's own statement is subtracted. */
export async function messagesPerSale(
  info: ClusterInfo,
  base: string,
  strategy: string,
  requests: number,
  concurrency: number,
): Promise<{ sold: number; per: Counters }> {
  await reset(base, requests);
  const before = await read(info);
  const redis = await RedisSentCounter.start(info.redis);
  const redlock = await Promise.all(info.redlock.map((u) => RedisSentCounter.start(u)));
  let next = 0;
  let sold = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        next++;
        if ((await deduct(base, strategy)) === 200) sold++;
      }
    }),
  );
  const redisSent = redis.stop();
  const redlockSent = redlock.reduce((n, c) => n + c.stop(), 0);
  const after = await read(info);
  const per = (n: number) => Math.max(0, n) / Math.max(1, sold);
  return {
    sold,
    per: {
      redis: per(redisSent),
      redlock: per(redlockSent),
      mysql: per(after.mysql - before.mysql - 1), // the SHOW GLOBAL STATUS of the first read
      zookeeper: per(after.zookeeper - before.zookeeper),
      etcd: per((after.etcd ?? 0) - (before.etcd ?? 0)),
      postgres: info.postgres ? per((after.postgres ?? 0) - (before.postgres ?? 0) - POSTGRES_READING_STATEMENTS) : 0,
    },
  };
}

/** Median and 90th percentile of `n` sequential calls, in ms. */
async function timed(n: number, call: () => Promise<unknown>): Promise<string> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await call();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) => (ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? NaN).toFixed(2);
  return `${at(0.5)} ms (p90 ${at(0.9)})`;
}

const zkCall = <T>(run: (done: (err: unknown, value: T) => void) => void): Promise<T> =>
  new Promise((resolve, reject) => run((err, value) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(value))));

/** Each server's own round trip, one call at a time, in the same run: the floor under every lock's hand-off. */
export async function rawRoundTrips(info: ClusterInfo, n: number): Promise<string[]> {
  const redis = new Redis(info.redis, { lazyConnect: true });
  await redis.connect();
  const mysql = await createConnection({ ...info.mysql, connectTimeout: 5_000 });
  const zk: Client = createClient(info.zookeeper);
  await new Promise<void>((resolve) => {
    zk.once('connected', () => resolve());
    zk.connect();
  });
  try {
    const node = `/stocklab-rtt-${randomUUID()}`;
    return [
      `Redis PING: ${await timed(n, () => redis.ping())}`,
      `MySQL SELECT 1: ${await timed(n, () => mysql.query('SELECT 1'))}`,
      `ZooKeeper exists (a read): ${await timed(n, () => zkCall((done) => zk.exists('/', (err, stat) => done(err, stat))))}`,
      // A write is answered once a quorum has logged it to disk: the cost of every create and delete.
      `ZooKeeper create + delete (two writes): ${await timed(n, async () => {
        await zkCall((done) => zk.create(node, CreateMode.PERSISTENT, (err, path) => done(err, path)));
        await zkCall((done) => zk.remove(node, -1, (err) => done(err, undefined)));
      })}`,
      ...(await etcdAndPostgresRoundTrips(info, n)),
    ];
  } finally {
    redis.disconnect();
    await mysql.end();
    zk.close();
  }
}

/** etcd's WAL fsyncs so far, by its own histogram: how many, and their total seconds. */
async function walFsyncs(info: ClusterInfo): Promise<{ count: number; seconds: number }> {
  const page = await etcdMetrics(info);
  return { count: metricSum(page, 'etcd_disk_wal_fsync_duration_seconds_count'), seconds: metricSum(page, 'etcd_disk_wal_fsync_duration_seconds_sum') };
}

/**
 * etcd's read and write, PostgreSQL's SELECT 1, and etcd's own time per WAL fsync over the writes
 * (etcd answers a write once it is in its write-ahead log, fsync'd: what every lock key costs).
 */
async function etcdAndPostgresRoundTrips(info: ClusterInfo, n: number): Promise<string[]> {
  const lines: string[] = [];
  if (info.etcd) {
    const etcd = openEtcd(info.etcd.split(','));
    const key = `stocklab-rtt/${randomUUID()}`;
    try {
      lines.push(`etcd get (a read): ${await timed(n, () => etcd.get(key).string())}`);
      const before = await walFsyncs(info);
      lines.push(`etcd put (a write: raft, the WAL fsync'd): ${await timed(n, () => etcd.put(key).value('1').exec())}`);
      const after = await walFsyncs(info);
      const fsyncs = after.count - before.count;
      const meanMs = fsyncs > 0 ? ((after.seconds - before.seconds) / fsyncs) * 1000 : NaN;
      lines.push(
        `etcd WAL fsync, by etcd_disk_wal_fsync_duration_seconds: ${meanMs.toFixed(2)} ms mean over ${fsyncs} fsyncs (${(fsyncs / n).toFixed(2)} per put)`,
      );
      await etcd.delete().key(key);
    } finally {
      etcd.close();
    }
  }
  if (info.postgres) {
    const client = new pg.Client({ ...info.postgres, connectionTimeoutMillis: 5_000 });
    client.on('error', () => undefined);
    await client.connect();
    try {
      lines.push(`PostgreSQL SELECT 1: ${await timed(n, () => client.query('SELECT 1'))}`);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return lines;
}
