// What is still held once every server has healed and the leases have had time to end: lock keys
// on the main Redis and the RedLock masters, ephemeral nodes under the ZooKeeper lock root, rows of
// the lock table. Read straight from the servers, never through an instance.
import { createConnection } from 'mysql2/promise';
import { createClient, Exception, type Client } from 'node-zookeeper-client';
import type { RunningCluster } from '../../src/cluster/cluster.js';
import { LOCK_KEY_PREFIX } from '../../src/locks/redis/keys.js';
import { LIBRARY_KEY_PATTERN } from '../../src/locks/library/redis-semaphore.js';
import { ZK_LOCK_ROOT } from '../../src/strategies/zookeeper.js';
import { pollUntil } from '../../src/time.js';
import { errorMessage } from '../errors.js';
import { redisAt } from '../replication.js';
import type { Leftover } from './history.js';

/** Keys under the lock prefix that are state, not a hold: counters, queues, permit totals. */
const NOT_A_HOLD = /(tickets|total|queue|alive|leases|semaphore|latch)/;

async function redisHolds(cluster: RunningCluster, port: number, where: string): Promise<Leftover[]> {
  const client = await redisAt(cluster, port);
  try {
    const keys = [...(await client.keys(`${LOCK_KEY_PREFIX}*`)), ...(await client.keys(LIBRARY_KEY_PATTERN))];
    return keys.filter((k) => !NOT_A_HOLD.test(k)).map((k) => ({ where, what: k }));
  } finally {
    client.disconnect();
  }
}

function zkChildren(client: Client, path: string): Promise<string[]> {
  return new Promise((resolve, reject) =>
    client.getChildren(path, (err, children) =>
      err ? ('getCode' in err && err.getCode() === Exception.NO_NODE ? resolve([]) : reject(err)) : resolve(children),
    ),
  );
}

function zkEphemeral(client: Client, path: string): Promise<boolean> {
  return new Promise((resolve, reject) =>
    client.exists(path, (err, stat) => (err ? reject(err) : resolve(stat?.ephemeralOwner.some((b) => b !== 0) ?? false))),
  );
}

/** Every ephemeral node under the lock root (a lock held, a place in line), by path. */
export async function zkHolds(connect: string): Promise<Leftover[]> {
  const client = createClient(connect, { sessionTimeout: 4_000 });
  const connected = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('ZooKeeper: not connected within 5 s')), 5_000);
    client.once('connected', () => (clearTimeout(timer), resolve()));
  });
  client.connect();
  try {
    await connected;
    const out: Leftover[] = [];
    const walk = async (path: string): Promise<void> => {
      for (const child of await zkChildren(client, path)) {
        const full = `${path}/${child}`;
        if (await zkEphemeral(client, full)) out.push({ where: 'zookeeper', what: full });
        await walk(full);
      }
    };
    await walk(ZK_LOCK_ROOT);
    return out;
  } finally {
    client.close();
  }
}

async function lockTableRows(cluster: RunningCluster): Promise<Leftover[]> {
  const conn = await createConnection({ ...cluster.info.mysql, connectTimeout: 5_000 });
  try {
    const [rows] = await conn.query('SELECT * FROM tb_lock');
    return (rows as Record<string, unknown>[]).map((r) => ({ where: 'mysql tb_lock', what: JSON.stringify(r) }));
  } finally {
    await conn.end();
  }
}

export async function holdsNow(cluster: RunningCluster): Promise<Leftover[]> {
  const s = cluster.servers;
  const parts = await Promise.all([
    redisHolds(cluster, s.redis.port, 'redis'),
    ...s.redlock.map((m) => redisHolds(cluster, m.port, m.name)),
    zkHolds(cluster.info.zookeeper),
    lockTableRows(cluster),
  ]);
  return parts.flat();
}

/** Polls until nothing is held, for boundMs at most; returns what was still held at the end. */
export async function leftoversAfter(cluster: RunningCluster, boundMs: number): Promise<Leftover[]> {
  let held: Leftover[] = [];
  await pollUntil(
    async () => {
      try {
        held = await holdsNow(cluster);
      } catch (err) {
        held = [{ where: 'unreadable', what: errorMessage(err) }]; // a server still coming back: read again
      }
      return held.length === 0;
    },
    boundMs,
    250,
  );
  return held;
}
