// One look at what the cluster holds, every few seconds of the soak: each instance's memory, open
// files and event-loop delay, MySQL's connections, Redis's clients and keys, ZooKeeper's
// connections, ephemeral nodes and watches. Read from /proc and the servers, not from the instances'
// own word, except the heap and the loop delay, which only the process knows (its /metrics, when it
// exposes Node's default metrics).
import fs from 'node:fs';
import net from 'node:net';
import { createConnection } from 'mysql2/promise';
import type { RunningCluster } from '../../src/cluster/cluster.js';
import { httpGet } from '../../src/cluster/probes.js';
import { redisAt } from '../replication.js';

/** resource name ("app-0 rss MB", "mysql threads") → value; a resource that could not be read is absent. */
export type Sample = Record<string, number>;

function procStatus(pid: number, field: string): number | undefined {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : undefined;
}

/** A Prometheus sample's value by metric name (the first series of it). */
function metric(text: string, name: string): number | undefined {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

/** A ZooKeeper four-letter word's answer (whitelisted in zoo.cfg). */
export function fourLetter(hostPort: string, word: string): Promise<string> {
  const [host, port] = hostPort.split(',')[0]!.split(':');
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = net.connect(Number(port), host, () => socket.end(word));
    socket.setTimeout(3_000, () => socket.destroy(new Error(`${word}: no answer within 3 s`)));
    socket.on('data', (d) => (text += d.toString()));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

async function instanceSample(cluster: RunningCluster, i: number, out: Sample): Promise<void> {
  const pid = cluster.servers.instances[i]?.pid;
  const base = cluster.info.instances[i];
  if (pid === undefined || !base) return;
  const rss = procStatus(pid, 'VmRSS');
  if (rss !== undefined) out[`app-${i} rss MB`] = rss / 1024;
  out[`app-${i} fds`] = fs.readdirSync(`/proc/${pid}/fd`).length;
  const reply = await httpGet(`${base}/metrics`, 3_000);
  if (reply?.status !== 200) return;
  const heap = metric(reply.body, 'nodejs_heap_size_used_bytes');
  if (heap !== undefined) out[`app-${i} heap MB`] = heap / 2 ** 20;
  const lag = metric(reply.body, 'nodejs_eventloop_lag_p99_seconds') ?? metric(reply.body, 'nodejs_eventloop_lag_seconds');
  if (lag !== undefined) out[`app-${i} loop delay ms`] = lag * 1_000;
}

async function mysqlSample(cluster: RunningCluster, out: Sample): Promise<void> {
  const conn = await createConnection({ ...cluster.info.mysql, connectTimeout: 5_000 });
  try {
    const [rows] = await conn.query("SHOW GLOBAL STATUS LIKE 'Threads_connected'");
    const row = (rows as { Value: string }[])[0];
    // our own connection is one of them
    if (row) out['mysql threads'] = Number(row.Value) - 1;
  } finally {
    await conn.end();
  }
}

async function redisSample(cluster: RunningCluster, out: Sample): Promise<void> {
  const client = await redisAt(cluster, cluster.servers.redis.port);
  try {
    const info = await client.info('clients');
    const m = /connected_clients:(\d+)/.exec(info);
    if (m) out['redis clients'] = Number(m[1]) - 1;
    out['redis keys'] = await client.dbsize();
  } finally {
    client.disconnect();
  }
}

async function zkSample(cluster: RunningCluster, out: Sample): Promise<void> {
  const mntr = await fourLetter(cluster.info.zookeeper, 'mntr');
  const field = (name: string) => {
    const m = new RegExp(`^${name}\\s+(\\d+)`, 'm').exec(mntr);
    return m ? Number(m[1]) : undefined;
  };
  const [eph, watches, conns] = [field('zk_ephemerals_count'), field('zk_watch_count'), field('zk_num_alive_connections')];
  if (eph !== undefined) out['zookeeper ephemerals'] = eph;
  if (watches !== undefined) out['zookeeper watches'] = watches;
  if (conns !== undefined) out['zookeeper connections'] = conns;
}

/** Every resource readable now; one that fails is left out of this sample (and named in `errors`). */
export async function sampleCluster(cluster: RunningCluster, errors: string[]): Promise<Sample> {
  const out: Sample = {};
  const parts = [
    ...cluster.servers.instances.map((_s, i) => instanceSample(cluster, i, out)),
    mysqlSample(cluster, out),
    redisSample(cluster, out),
    zkSample(cluster, out),
  ];
  for (const r of await Promise.allSettled(parts)) if (r.status === 'rejected') errors.push(String(r.reason));
  return out;
}
