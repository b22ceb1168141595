// The whole comparison. Rounds of short throughput windows, every strategy once per round and in a
// rotated order, so drift on a shared machine hits all of them alike; then one oversell race per
// strategy and topology. Figures are medians of the rounds with their min–max.
import os from 'node:os';
import type { ClusterInfo } from '../src/cluster/types.js';
import { fetchCatalog, selectStrategies, type CatalogEntry } from '../src/load/catalog.js';
import { stopLoad } from '../src/load/fire.js';
import { agent, kOf, messagesPerSale } from './message-counts.js';
import {
  checkStoresMatch,
  expectedOutcome,
  measureNoop,
  measureNoopWithWrk,
  measureRace,
  measureSoldOutWindow,
  measureWindow,
  type WindowSample,
  type WindowSettings,
} from './measure.js';
import { chosenStrategies, MIN_RACE_UNITS, SELL_OUT_AT, SOLD_OUT_MAX_SECONDS, type BenchOptions } from './options.js';
import { benchPlan, PREWARM_SECONDS, raceEstimate, STEP_OVERHEAD_SECONDS, stepKey } from './plan.js';
import { ceilingLine, raceLine, soldOutLine, windowLine } from './progress.js';
import {
  orderRuns,
  REFERENCE_STRATEGY,
  TOPOLOGY_LABEL,
  withStandings,
  worstOf,
  type BenchOptionsRecord,
  type BenchReport,
  type Ceiling,
  type RaceFigures,
  type RunResult,
  type Topology,
} from '../report/bench/report.js';
import { spreadOf } from '../report/bench/stats.js';
import type { BenchTarget } from './target.js';
import { summarizeWindowTimes } from '../report/bench/window-time.js';
import { wrkPath } from './wrk.js';
import { Progress, type Log } from '../src/cli/progress.js';

export type { Log };

export function paramsOf(o: BenchOptions): Record<string, number> {
  const params: Record<string, number> = { workMs: o.workMs };
  if (o.ttlMs !== undefined) params.ttlMs = o.ttlMs;
  if (o.waitMs !== undefined) params.waitMs = o.waitMs;
  return params;
}

/** The strategies to run; the efficiency reference joins them when a one-instance run is possible. */
function plan(catalog: CatalogEntry[], o: BenchOptions, hasOne: boolean, notes: string[]): CatalogEntry[] {
  const wanted = chosenStrategies(o);
  const chosen = selectStrategies(catalog, wanted, o.families);
  if (hasOne && !chosen.some((s) => s.name === REFERENCE_STRATEGY) && catalog.some((s) => s.name === REFERENCE_STRATEGY)) {
    notes.push(`${REFERENCE_STRATEGY} was added as the lock-efficiency reference.`);
    return selectStrategies(catalog, [...(wanted ?? []), REFERENCE_STRATEGY], o.families);
  }
  return chosen;
}

/**
 * How many units a strategy races for: the course's size for its headline rows; else, when sized
 * by time, what its median goodput sells in about raceSeconds (so a slow lock's race still ends);
 * else the fixed size.
 */
export function raceSize(o: BenchOptions, strategy: string, goodput: number): { requests: number; initial: number } {
  if (o.courseStrategies.includes(strategy)) return { requests: o.courseRequests, initial: o.courseInitial };
  if (o.raceSeconds === undefined) return { requests: o.requests, initial: o.initial };
  const initial = Math.max(MIN_RACE_UNITS, Math.min(o.initial, Math.round((goodput * o.raceSeconds) / 10) * 10));
  return { requests: initial + (o.requests - o.initial), initial };
}

/**
 * The stock of a cell's last window, which is also its race: what its goodput so far sells by
 * SELL_OUT_AT of the measured span (from MIN_RACE_UNITS to the course's size); undefined when that
 * would take longer than SOLD_OUT_MAX_SECONDS, so the cell is raced apart.
 */
export function soldOutUnits(o: BenchOptions, goodput: number): number | undefined {
  const units = Math.max(MIN_RACE_UNITS, Math.min(o.courseInitial, Math.round(goodput * (o.warmupSeconds + SELL_OUT_AT * o.windowSeconds))));
  return goodput > 0 && units / goodput <= SOLD_OUT_MAX_SECONDS ? units : undefined;
}

/** How long a sold-out window should take: until its units sell (at least the window), then a drain. */
function soldOutEstimate(o: BenchOptions, goodput: number): number {
  const units = soldOutUnits(o, goodput);
  const selling = units === undefined ? 0 : units / goodput;
  return Math.max(o.warmupSeconds + o.windowSeconds, selling) + STEP_OVERHEAD_SECONDS;
}

/** Round r starts r steps further along the list, so no strategy always runs first or last. */
export function rotated<T>(items: T[], round: number): T[] {
  const k = items.length > 0 ? round % items.length : 0;
  return [...items.slice(k), ...items.slice(0, k)];
}

function recordOf(o: BenchOptions): BenchOptionsRecord {
  const {
    strategies: _strategies,
    target: _target,
    instance: _instance,
    mysql: _mysql,
    redis: _redis,
    postgres: _postgres,
    out: _out,
    lang: _lang,
    ...record
  } = o;
  return record;
}

export function stampOf(d: Date): string {
  return d.toISOString().replace(/[:]/g, '-').replace(/\..+$/, '');
}

async function measureCeilings(bases: [Topology, string][], o: BenchOptions, wrk: string | undefined, progress: Progress, notes: string[]): Promise<Ceiling[]> {
  if (!wrk) notes.push('wrk is not installed (Debian package wrk): the ceiling has no reference to compare the load generator with.');
  const samples = new Map(bases.map(([t]) => [t, { autocannon: [] as number[], wrk: [] as number[] }]));
  const settings = { connections: o.connections, warmupSeconds: o.warmupSeconds, windowSeconds: o.windowSeconds };
  // Unmeasured: a freshly started instance pays for JIT and connections in its first seconds, which
  // a short warm-up does not cover, and would make round 1 of whichever tool goes first an outlier.
  for (const [topology, base] of bases) {
    await progress.step(stepKey.prewarm(topology), `warm-up · ${TOPOLOGY_LABEL[topology]}`, () =>
      measureNoop(base, { ...settings, warmupSeconds: 0, windowSeconds: PREWARM_SECONDS }),
    );
  }
  for (let round = 0; round < o.rounds; round++) {
    for (const [topology, base] of bases) {
      const s = samples.get(topology)!;
      // alternate which tool goes first, so neither always meets the warmer instance
      const tools = round % 2 === 0 ? (['autocannon', 'wrk'] as const) : (['wrk', 'autocannon'] as const);
      await progress.step(stepKey.ceiling(round, topology), `GET /noop · ${TOPOLOGY_LABEL[topology]}`, async () => {
        for (const tool of tools) {
          if (tool === 'autocannon') s.autocannon.push(await measureNoop(base, settings));
          else if (wrk) s.wrk.push(await measureNoopWithWrk(wrk, base, settings));
        }
      });
      progress.line(ceilingLine(round + 1, o.rounds, topology, s.autocannon.at(-1) ?? 0, wrk ? (s.wrk.at(-1) ?? 0) : undefined));
    }
  }
  return bases.map(([topology]) => {
    const s = samples.get(topology)!;
    return { topology, autocannon: spreadOf(s.autocannon), wrk: wrk ? spreadOf(s.wrk) : null };
  });
}

/** `out`: a Progress (the CLIs'), or a plain log for lines with the plan's position. */
/** Sales one at a time per strategy for its count of messages: few, as the counts do not vary (npm run round-trips uses 200). */
const MESSAGE_SALES = 50;

/** Each strategy's round trips per sale (k), counted by the native cluster's servers, one sale at a time on `base`. */
async function countMessages(cluster: ClusterInfo, base: string, strategies: readonly CatalogEntry[], progress: Progress): Promise<Map<string, number>> {
  progress.add(strategies.map((s) => ({ key: `messages/${s.name}`, phase: 'messages', seconds: 1 })));
  const k = new Map<string, number>();
  for (const s of strategies) {
    const { per } = await progress.step(`messages/${s.name}`, `messages per sale: ${s.name}`, () => messagesPerSale(cluster, base, s.name, MESSAGE_SALES, 1));
    k.set(s.name, kOf(per, cluster.redlock.length));
  }
  agent.destroy(); // its keep-alive sockets to the instance are done with
  return k;
}

export async function runBench(o: BenchOptions, target: BenchTarget, out: Log | Progress): Promise<BenchReport> {
  const progress = out instanceof Progress ? out : new Progress(out);
  const log = progress.line;
  const started = new Date();
  const notes: string[] = [];
  const bases: [Topology, string][] = target.one
    ? [
        ['one', target.one],
        ['three', target.three],
      ]
    : [['three', target.three]];
  if (!target.one) notes.push('No single instance was given (--instance URL): one-instance runs were skipped and lock efficiency is not available.');

  const catalog = await fetchCatalog(target.one ?? target.three);
  const strategies = plan(catalog, o, target.one !== undefined, notes);
  const params = paramsOf(o);
  const kinds = [...new Set(strategies.map((s) => s.stores[0]))];
  await checkStoresMatch(target.three, target.stores, kinds);

  try {
    const cells = strategies.flatMap((s) => bases.map(([topology, base]) => ({ s, topology, base, key: `${s.name}/${topology}` })));
    const wrk = wrkPath();
    /** The cells whose race is a run of its own: the course's full-size rows, and any whose last window could not be one. */
    const apart = new Set(cells.filter((c) => !o.soldOutWindows || o.courseStrategies.includes(c.s.name)).map((c) => c.key));
    progress.add(
      benchPlan(
        o,
        cells.map((c) => ({ key: c.key, raceApart: apart.has(c.key) })),
        bases.map(([t]) => t),
        wrk !== undefined,
      ),
    );
    const racing = o.soldOutWindows ? 'the last window of each sells out as its race' : 'then one race each';
    log(
      `bench: ${strategies.length} strategies × ${bases.length} topologies; ${o.rounds} rounds of ${o.warmupSeconds} s warm-up + ${o.windowSeconds} s window at ${o.connections} connections, workMs ${o.workMs}; ${racing}`,
    );
    const ceilings = await measureCeilings(bases, o, wrk, progress, notes);

    /** A race's size and expected time, from the strategy's goodput measured so far. */
    const raceOf = (c: (typeof cells)[number]) => {
      const w = windows.get(c.key)!;
      const goodput = spreadOf(w.map((x) => x.goodput)).median;
      const size = raceSize(o, c.s.name, goodput);
      return { size, seconds: raceEstimate(size, goodput, spreadOf(w.map((x) => x.refusedPerSec)).median, o.maxSeconds) };
    };
    const windows = new Map<string, WindowSample[]>(cells.map((c) => [c.key, []]));
    const races = new Map<string, RaceFigures>();
    const settings: WindowSettings = { connections: o.connections, warmupSeconds: o.warmupSeconds, windowSeconds: o.windowSeconds, params };
    const last = o.rounds - 1;
    for (let round = 0; round < o.rounds; round++) {
      for (const c of rotated(cells, round)) {
        const label = `${c.s.name} · ${TOPOLOGY_LABEL[c.topology]}`;
        let units: number | undefined;
        if (round === last && !apart.has(c.key)) {
          units = soldOutUnits(o, spreadOf(windows.get(c.key)!.map((x) => x.goodput)).median);
          if (units === undefined) {
            apart.add(c.key);
            progress.add([{ key: stepKey.race(c.key), phase: 'races', seconds: raceOf(c).seconds }]);
          }
        }
        if (units !== undefined) {
          const w = await progress.step(stepKey.window(round, c.key), `[round ${round + 1}/${o.rounds}, sells out] ${label}`, () =>
            measureSoldOutWindow(c.base, target.stores, c.s, settings, units, o.maxSeconds),
          );
          if (w.sample) windows.get(c.key)!.push(w.sample);
          races.set(c.key, w.race);
          log(soldOutLine(round + 1, o.rounds, c.s.name, c.topology, w.sample, w.race));
          continue;
        }
        const w = await progress.step(stepKey.window(round, c.key), `[round ${round + 1}/${o.rounds}] ${label}`, () =>
          measureWindow(c.base, target.stores, c.s, settings),
        );
        windows.get(c.key)!.push(w);
        if (apart.has(c.key)) progress.replan(stepKey.race(c.key), raceOf(c).seconds);
        else if (round === last - 1)
          progress.replan(stepKey.window(last, c.key), soldOutEstimate(o, spreadOf(windows.get(c.key)!.map((x) => x.goodput)).median));
        log(windowLine(round + 1, o.rounds, c.s.name, c.topology, w));
      }
    }
    const windowTime = summarizeWindowTimes(new Map([...windows].map(([cell, w]) => [cell, w.map((x) => x.time)])));

    for (const c of cells.filter((x) => apart.has(x.key))) {
      const size = { ...raceOf(c).size, connections: o.connections, maxSeconds: o.maxSeconds, params };
      const label = `race ${c.s.name} · ${TOPOLOGY_LABEL[c.topology]}`;
      const r = await progress.step(stepKey.race(c.key), label, () =>
        measureRace(c.base, target.stores, c.s, size, (answered) => progress.transient(`… ${label}: ${answered}/${size.requests} answered`)),
      );
      races.set(c.key, r);
      log(raceLine(c.s.name, c.topology, r));
    }

    const messages = target.cluster ? await countMessages(target.cluster, target.one ?? target.three, strategies, progress) : new Map<string, number>();

    const runs: RunResult[] = cells.map((c) => {
      const w = windows.get(c.key)!;
      const race = races.get(c.key)!;
      return {
        strategy: c.s.name,
        family: c.s.family,
        store: c.s.stores[0],
        topology: c.topology,
        expected: expectedOutcome(c.s, c.topology, params),
        race,
        throughput: {
          goodput: spreadOf(w.map((x) => x.goodput)),
          refusedPerSec: spreadOf(w.map((x) => x.refusedPerSec)),
          p50Ms: spreadOf(w.map((x) => x.p50Ms)),
          p99Ms: spreadOf(w.map((x) => x.p99Ms)),
        },
        worst: worstOf([race, ...w.map((x) => x.check)]),
        efficiency: null,
        rank: 0,
        tiesWith: [],
        ...(messages.has(c.s.name) && { messagesPerSale: messages.get(c.s.name) }),
      };
    });

    return {
      stamp: stampOf(started),
      date: started.toISOString(),
      machine: { nproc: os.availableParallelism(), cpu: os.cpus()[0]?.model ?? 'unknown', node: process.version, platform: `${os.type()} ${os.release()}` },
      options: recordOf(o),
      target: { three: target.three, one: target.one ?? null, source: target.source },
      catalog: strategies,
      ceilings,
      runs: orderRuns(withStandings(runs), strategies),
      reference: REFERENCE_STRATEGY,
      seconds: (Date.now() - started.getTime()) / 1000,
      ...(windowTime && { windowTime }),
      notes,
    };
  } finally {
    stopLoad();
  }
}
