// `npm run bench -- --rtt 0,2`: the strategies at each round trip, on one cluster whose links are
// delayed by forwarders (src/cluster/links.ts) and retimed between measurements. Each round visits
// every round trip and every strategy in a rotated order, so drift hits all alike; figures are the
// medians of the rounds with their min–max. Beside each: k, the round trips in one sale's serial
// path (counted by the servers, as `npm run round-trips` does), and the bound 1/(k·r).
import os from 'node:os';
import type { PlannedStep } from '../src/cli/plan-clock.js';
import { Progress } from '../src/cli/progress.js';
import type { ClusterInfo } from '../src/cluster/types.js';
import { fetchCatalog, selectStrategies, type CatalogEntry } from '../src/load/catalog.js';
import { stopLoad } from '../src/load/fire.js';
import { LINK_SAMPLES, mysqlRoundTrip, mysqlRoundTrips, redisRoundTrip, redisRoundTrips } from './link-time.js';
import { expectedOutcome, measureRace, measureWindow, type WindowSample } from './measure.js';
import { agent, kOf, messagesPerSale } from './message-counts.js';
import { boundOf, type Counters, type LinkTimes, type SweepReport, type SweepRow } from '../report/bench/sweep-results.js';
import { chosenStrategies, type BenchOptions } from './options.js';
import { int, microseconds, oversoldText, raceText, signedMicroseconds } from '../report/bench/format.js';
import type { RaceFigures } from '../report/bench/report.js';
import { spreadOf, type Spread } from '../report/bench/stats.js';
import type { BenchTarget } from './target.js';
import { paramsOf, raceSize, rotated, stampOf } from './bench.js';

/** Deductions, one at a time, that k is counted from. */
const COUNT_REQUESTS = 50;
/** Per step: resetting the stock, starting the load, reading the units left (as plan.ts). */
const STEP_OVERHEAD_SECONDS = 0.5;

/** The sweep's steps with their first estimates, for the progress lines. */
function sweepPlan(o: BenchOptions, rtts: readonly number[], strategies: readonly CatalogEntry[]): PlannedStep[] {
  const names = strategies.map((s) => s.name);
  return [
    ...rtts.map((r) => ({ key: `links/${r}`, phase: 'links', seconds: 1 + r * 0.6 })),
    ...names.map((s) => ({ key: `k/${s}`, phase: 'k', seconds: 2 })),
    ...Array.from({ length: o.rounds }, (_x, round) =>
      rtts.flatMap((r) =>
        names.map((s) => ({ key: `window/${round}/${r}/${s}`, phase: 'windows', seconds: o.warmupSeconds + o.windowSeconds + STEP_OVERHEAD_SECONDS })),
      ),
    ).flat(),
    ...rtts.flatMap((r) => names.map((s) => ({ key: `race/${r}/${s}`, phase: 'races', seconds: (o.raceSeconds ?? 2) + STEP_OVERHEAD_SECONDS }))),
  ];
}

/** What the sweep needs of the cluster: its record (addresses, links), and a way to retime its links. */
export interface SweepCluster {
  info: ClusterInfo;
  setRtt(ms: number): Promise<void>;
}

/** The server's own address of a link, for timing it directly. */
function directAddress(info: ClusterInfo, name: string): { host: string; port: number } | undefined {
  const server = info.links?.find((l) => l.name === name)?.server;
  if (!server) return undefined;
  const colon = server.lastIndexOf(':');
  return { host: server.slice(0, colon), port: Number(server.slice(colon + 1)) };
}

async function timeLinks(info: ClusterInfo, rttMs: number): Promise<LinkTimes> {
  return { rttMs, mysql: await mysqlRoundTrip(info.mysql), redis: await redisRoundTrip(info.redis) };
}

/** At r = 0: the servers directly and through their forwarders, timed in turn. */
async function timeDirectAndZero(info: ClusterInfo): Promise<{ direct: SweepReport['direct']; zero: LinkTimes }> {
  const mysql = directAddress(info, 'mysql') ?? info.mysql;
  const redis = directAddress(info, 'redis');
  const redisUrl = new URL(info.redis);
  if (redis) {
    redisUrl.hostname = redis.host;
    redisUrl.port = String(redis.port);
  }
  const [mysqlDirect, mysqlZero] = (await mysqlRoundTrips([{ ...info.mysql, ...mysql }, info.mysql])) as [Spread, Spread];
  const [redisDirect, redisZero] = (await redisRoundTrips([redisUrl.toString(), info.redis])) as [Spread, Spread];
  return { direct: { mysql: mysqlDirect, redis: redisDirect }, zero: { rttMs: 0, mysql: mysqlZero, redis: redisZero } };
}

export async function runSweep(
  o: BenchOptions,
  rtts: readonly number[],
  target: BenchTarget,
  cluster: SweepCluster,
  out: Progress = new Progress(),
): Promise<SweepReport> {
  const log = out.line;
  const started = new Date();
  const { info } = cluster;
  if (!info.links) throw new Error('the sweep needs a cluster with forwarders (npm run cluster -- up --rtt MS)');
  const notes: string[] = [];
  const one = info.instances[0] ?? target.three;
  const strategies: CatalogEntry[] = selectStrategies(await fetchCatalog(target.three), chosenStrategies(o), o.families);
  const params = paramsOf(o);
  const settings = { connections: o.connections, warmupSeconds: o.warmupSeconds, windowSeconds: o.windowSeconds, params };
  out.add(sweepPlan(o, rtts, strategies));
  try {
    // The forwarders' own cost: at 0 they pass bytes on at once, and the servers answer directly too.
    await cluster.setRtt(0);
    const { direct, zero } = await timeDirectAndZero(info);
    const forwarderCost = { mysql: zero.mysql.median - direct.mysql.median, redis: zero.redis.median - direct.redis.median };
    const linkTimes: LinkTimes[] = [];
    for (const r of rtts) {
      const t = await out.step(`links/${r}`, `rtt ${r} ms: the links' round trip`, async () => {
        if (r === 0) return zero;
        await cluster.setRtt(r);
        return timeLinks(info, r);
      });
      linkTimes.push(t);
      log(
        `rtt ${r} ms: one request's round trip, median of ${LINK_SAMPLES} (min–max): MySQL SELECT 1 ${microseconds(t.mysql)}, Redis PING ${microseconds(t.redis)}`,
      );
    }
    log(`directly to the servers (no forwarder): MySQL SELECT 1 ${microseconds(direct.mysql)}, Redis PING ${microseconds(direct.redis)}`);
    log(
      `a forwarder's own cost at rtt 0 (timed in turn with the direct link): MySQL ${signedMicroseconds(forwarderCost.mysql)}, Redis ${signedMicroseconds(forwarderCost.redis)}`,
    );

    // k does not depend on r (one request at a time): counted at the quickest.
    await cluster.setRtt(0);
    const counts = new Map<string, Counters>();
    for (const s of strategies) {
      const { per } = await out.step(`k/${s.name}`, `k ${s.name}: ${COUNT_REQUESTS} sales one at a time`, () =>
        messagesPerSale(info, one, s.name, COUNT_REQUESTS, 1),
      );
      counts.set(s.name, per);
      log(
        `k ${s.name}: ${kOf(per, info.redlock.length).toFixed(1)} (Redis ${per.redis.toFixed(1)}, RedLock ${per.redlock.toFixed(1)} over ${info.redlock.length} masters, MySQL ${per.mysql.toFixed(1)}, ZooKeeper ${per.zookeeper.toFixed(1)}, etcd ${(per.etcd ?? 0).toFixed(1)}, PostgreSQL ${(per.postgres ?? 0).toFixed(1)})`,
      );
    }

    const key = (rtt: number, s: string) => `${rtt}/${s}`;
    const windows = new Map<string, WindowSample[]>();
    for (let round = 0; round < o.rounds; round++) {
      for (const r of rotated([...rtts], round)) {
        await cluster.setRtt(r);
        for (const s of rotated(strategies, round)) {
          const w = await out.step(`window/${round}/${r}/${s.name}`, `[round ${round + 1}/${o.rounds}] rtt ${r} ms · ${s.name}`, () =>
            measureWindow(target.three, target.stores, s, settings),
          );
          windows.set(key(r, s.name), [...(windows.get(key(r, s.name)) ?? []), w]);
          log(`[round ${round + 1}/${o.rounds}] rtt ${r} ms · ${s.name}: ${int(w.goodput)} sold/s, ${int(w.refusedPerSec)} 503/s, p99 ${int(w.p99Ms)} ms`);
        }
      }
    }

    const races = new Map<string, RaceFigures>();
    for (const r of rtts) {
      await cluster.setRtt(r);
      for (const s of strategies) {
        const goodput = spreadOf((windows.get(key(r, s.name)) ?? []).map((w) => w.goodput)).median;
        const size = { ...raceSize(o, s.name, goodput), connections: o.connections, maxSeconds: o.maxSeconds, params };
        const race = await out.step(`race/${r}/${s.name}`, `race rtt ${r} ms · ${s.name}`, () => measureRace(target.three, target.stores, s, size));
        races.set(key(r, s.name), race);
        log(
          `[race] rtt ${r} ms · ${s.name}: ${race.requests} requests for ${race.initial} units → 200/409/503/left ${raceText(race)} → oversold ${oversoldText(race)} (${race.seconds.toFixed(1)} s)`,
        );
      }
    }

    const rows: SweepRow[] = strategies.map((s) => {
      const c = counts.get(s.name) as Counters;
      const k = kOf(c, info.redlock.length);
      return {
        strategy: s.name,
        family: s.family,
        expected: expectedOutcome(s, 'three', params),
        counts: c,
        k,
        cells: rtts.map((r) => {
          const w = windows.get(key(r, s.name)) ?? [];
          const goodput = spreadOf(w.map((x) => x.goodput));
          const bound = boundOf(k, r);
          return {
            rttMs: r,
            goodput,
            bound,
            fraction: bound === null ? null : goodput.median / bound,
            race: races.get(key(r, s.name)) as RaceFigures,
            windows: w.map((x) => x.check),
          };
        }),
      };
    });
    if (rtts.includes(0))
      notes.push(`At rtt 0 the links still pass through the forwarders, set to 0: the cost of one, against the servers directly, is in the first table.`);
    return {
      kind: 'rtt-sweep',
      stamp: stampOf(started),
      date: started.toISOString(),
      machine: { nproc: os.availableParallelism(), cpu: os.cpus()[0]?.model ?? 'unknown', node: process.version },
      rtts: [...rtts],
      rounds: o.rounds,
      connections: o.connections,
      windowSeconds: o.windowSeconds,
      params,
      target: target.three,
      linkTimes,
      direct,
      linkSamples: LINK_SAMPLES,
      forwarderCost,
      rows,
      seconds: (Date.now() - started.getTime()) / 1000,
      notes,
    };
  } finally {
    stopLoad();
    agent.destroy();
  }
}
