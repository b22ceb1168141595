// The cluster's delayed links (issue 38): brought up with a round trip of 2 ms, a client that
// times one request to MySQL and to Redis through the addresses the cluster gives sees 2 ms; a race
// through nginx is exact; the round trip changes on the running cluster. The race runs before the
// timings: it warms every process up (a fresh forwarder's first requests run before its JIT). At
// rtt 0 (the shared cluster) there is no forwarder at all.
import { describe, expect, it } from 'vitest';
import { mysqlRoundTrip, mysqlRoundTrips, redisRoundTrip, redisRoundTrips } from '../../bench/link-time.js';
import { microseconds } from '../../report/bench/format.js';
import { race } from '../../src/load/race.js';
import { freeClusterConfig, startCluster } from '../../src/cluster/cluster.js';
import { redisUrl } from '../../src/config.js';
import { sharedCluster } from '../support/cluster.js';
import { withFixture } from '../support/fixture.js';
import { expectExactRace } from '../support/race-checks.js';

const RTT_MS = 2;
/** The asked round trip ± this: the forwarder's own precision plus the server's answer. */
const TOLERANCE_MS = 0.5;

/** The 10th percentile of a sample. */
const low = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.1)] as number;

describe('a cluster at rtt 2', () => {
  const own = withFixture(
    'rtt',
    async (dir) => startCluster({ config: { ...(await freeClusterConfig(dir, 3)), rttMs: RTT_MS }, instanceEnv: { LOG_LEVEL: 'warn' } }),
    (cluster) => cluster.stop(),
  );

  it('records the round trip and, for every server but nginx, its own address and its forwarder', () => {
    const { info, servers } = own.current;
    expect(info.rttMs).toBe(RTT_MS);
    const names = info.links?.map((l) => l.name);
    expect(names).toEqual([
      'mysql',
      'redis',
      'redlock-0',
      'redlock-1',
      'redlock-2',
      'redlock-3',
      'redlock-4',
      'zookeeper',
      'etcd',
      'postgres',
      ...servers.instances.map((s) => s.name),
    ]);
    const mysqlLink = info.links?.find((l) => l.name === 'mysql');
    expect(mysqlLink?.server).toBe(`${servers.mysql.host}:${servers.mysql.port}`);
    expect(`${info.mysql.host}:${info.mysql.port}`).toBe(mysqlLink?.forwarder);
    expect(servers.links.map((s) => s.name)).toEqual(names?.map((n) => `link-${n}`));
  });

  it('sql-update through nginx is exact: 110 requests for 100 units', async () => {
    const { info } = own.current;
    const r = await race({ target: info.nginx, stores: info, strategy: 'sql-update', initial: 100, requests: 110, connections: 20, maxSeconds: 60 });
    expectExactRace(r, `sql-update at rtt ${RTT_MS}`, 0);
  });

  it('a client timing one request to MySQL and to Redis through its addresses sees 2 ± 0.5 ms added, never less than 2', async () => {
    const { info, servers } = own.current;
    const directMysql = { ...info.mysql, host: servers.mysql.host, port: servers.mysql.port };
    const directRedis = redisUrl(servers.redis.port, undefined, servers.redis.host);
    // Direct and delayed timed in turn (one of each, then again), so a busy spell weighs on both.
    const timings = async () => {
      const [mysqlDirect, mysqlDelayed] = await mysqlRoundTrips([directMysql, info.mysql]);
      const [redisDirect, redisDelayed] = await redisRoundTrips([directRedis, info.redis]);
      return { mysql: { direct: mysqlDirect!, delayed: mysqlDelayed! }, redis: { direct: redisDirect!, delayed: redisDelayed! } };
    };
    for (const what of ['mysql', 'redis'] as const) {
      // A busy machine only ever adds (a wake-up waits for a time slice), so the low percentiles show
      // what the links add, and the best of up to three rounds is judged: one round's 10th
      // percentile reached 2.53 ms on a loaded machine. The medians, printed, are the bench's figures
      // (bench/link-time.ts).
      let best = Infinity;
      for (let round = 1; round <= 3 && Math.abs(best - RTT_MS) > TOLERANCE_MS; round++) {
        const t = (await timings())[what];
        const added = low(t.delayed.samples) - low(t.direct.samples);
        console.log(
          `[latency] rtt ${RTT_MS} ms, ${what}, round ${round}, median of 20 (min–max): through the cluster ${microseconds(t.delayed)}, directly ${microseconds(t.direct)}; added ${Math.round(added * 1000)} µs (10th percentiles)`,
        );
        // The forwarder never runs early: no round trip is shorter than the one asked for, in any round.
        expect(Math.min(...t.delayed.samples), what).toBeGreaterThanOrEqual(RTT_MS);
        if (Math.abs(added - RTT_MS) < Math.abs(best - RTT_MS)) best = added;
      }
      expect(Math.abs(best - RTT_MS), `${what}: added ${best} ms at best`).toBeLessThanOrEqual(TOLERANCE_MS);
    }
  });

  it('changes the round trip in place: 0.5 ms, then 0 (the forwarders alone, against the servers directly)', async () => {
    const { info, servers } = own.current;
    await own.current.setRtt(0.5);
    expect(info.rttMs).toBe(0.5);
    const half = await mysqlRoundTrip(info.mysql);
    await own.current.setRtt(0);
    const through = await mysqlRoundTrip(info.mysql);
    const direct = await mysqlRoundTrip({ ...info.mysql, host: servers.mysql.host, port: servers.mysql.port });
    console.log(
      `[latency] MySQL SELECT 1, median of 20 (min–max): rtt 0.5 ${microseconds(half)}; rtt 0 through the forwarder ${microseconds(through)}, directly ${microseconds(direct)}`,
    );
    // The order only: each retiming took effect (the figures at each round trip are the bench's).
    expect(through.median).toBeLessThan(half.median);
    expect(half.median).toBeLessThan(RTT_MS);
    await own.current.setRtt(RTT_MS);
  });

  it('puts one RedLock master far away: 20 ms on its link alone, the others keep 2 ms', async () => {
    const { info } = own.current;
    await own.current.setRtt(20, ['redlock-4']);
    expect(info.links?.find((l) => l.name === 'redlock-4')?.rttMs).toBe(20);
    const far = await redisRoundTrip(info.redlock[4] as string, 10);
    const near = await redisRoundTrip(info.redlock[0] as string, 10);
    console.log(`[latency] Redis PING, median of 10 (min–max): the far master ${microseconds(far)}, a near one ${microseconds(near)}`);
    // The order only, with wide margins: 20 ms against 2 ms.
    expect(far.median).toBeGreaterThan(15);
    expect(near.median).toBeLessThan(10);
    await own.current.setRtt(RTT_MS);
    expect(info.links?.find((l) => l.name === 'redlock-4')?.rttMs).toBeUndefined();
  });
});

describe('a cluster at rtt 0', () => {
  it('has no forwarders: its record names none and shows rtt 0', () => {
    const info = sharedCluster();
    expect(info.rttMs).toBe(0);
    expect(info.links).toBeUndefined();
  });
});
