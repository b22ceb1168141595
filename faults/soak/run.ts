// The soak: steady load at about 70 % of each strategy's goodput, the strategies in turn, for
// minutes; the cluster's resources sampled throughout. At the end the chaos checker judges the
// history (nothing oversold, every answer documented), and a resource whose least-squares slope
// is above its bound (and that grew by more than its noise over the run) fails it.
import type { RunningCluster } from '../../src/cluster/cluster.js';
import { sleep } from '../../src/time.js';
import type { PlannedStep } from '../../src/cli/plan-clock.js';
import { stepOf, type Progress } from '../../src/cli/progress.js';
import { ensureReady, liveBase } from '../cluster-ops.js';
import { isSold } from '../client.js';
import { readSales, resetStock } from '../service.js';
import { checkHistory, type ChaosVerdict } from '../chaos/checker.js';
import type { ChaosHistory, ChaosStrategy, Slice } from '../chaos/history.js';
import { leftoversAfter } from '../chaos/leftovers.js';
import { makeRecorder, readLeft } from '../chaos/run.js';
import { CHAOS_TTL_MS, runLoad, sendRecorded, type Recorder } from '../chaos/workload.js';
import { ZK_SESSION_MS } from '../locks.js';
import { sampleCluster, type Sample } from './sample.js';
import { slopePerMinute, type Point } from './slope.js';

export interface SoakOptions {
  minutes: number;
  strategies: ChaosStrategy[];
  sampleEveryMs: number;
  /** each strategy's turn */
  turnMs: number;
}

/** Per minute, and the growth over the run that stands out of the noise: both exceeded = it keeps growing. */
export interface Bound {
  perMinute: number;
  growth: number;
}

/** By the resource's kind (the end of its name). Memory settles after warm-up; counts should not move at all under steady load. */
export const SLOPE_BOUNDS: Readonly<Record<string, Bound>> = {
  'rss MB': { perMinute: 5, growth: 20 },
  'heap MB': { perMinute: 3, growth: 10 },
  fds: { perMinute: 2, growth: 10 },
  threads: { perMinute: 2, growth: 5 },
  clients: { perMinute: 2, growth: 5 },
  keys: { perMinute: 2, growth: 5 },
  ephemerals: { perMinute: 2, growth: 5 },
  watches: { perMinute: 10, growth: 20 },
  connections: { perMinute: 2, growth: 5 },
};

export const boundOf = (resource: string): Bound | undefined => Object.entries(SLOPE_BOUNDS).find(([k]) => resource.endsWith(k))?.[1];

export interface SlopeRow {
  resource: string;
  first: number;
  last: number;
  perMinute: number;
  bound?: Bound;
  grows: boolean;
}

export interface SoakResult {
  history: ChaosHistory;
  verdict: ChaosVerdict;
  samples: { t: number; values: Sample }[];
  sampleErrors: string[];
  slopes: SlopeRow[];
  goodput: Record<string, number>;
  rates: Record<string, number>;
  ok: boolean;
  failures: string[];
}

const INITIAL = 5_000_000;
const GOODPUT_MS = 2_000;
const GOODPUT_WORKERS = 16;
const LOAD_SHARE = 0.7;
const MAX_RATE = 200;

/** `workers` clients one request after another until untilMs: the 200s a second it sustains. */
async function closedLoop(rec: Recorder, nginx: string, s: ChaosStrategy, workers: number, ms: number): Promise<number> {
  const until = Date.now() + ms;
  let sold = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (Date.now() < until) if (isSold((await sendRecorded(rec, nginx, 'nginx', s, 'goodput')).outcome)) sold++;
    }),
  );
  return (sold * 1_000) / ms;
}

/** Drops the first third of the samples (warm-up: JIT, pools filling), then fits each resource. */
export function slopesOf(samples: readonly { t: number; values: Sample }[]): SlopeRow[] {
  const kept = samples.slice(Math.min(Math.floor(samples.length / 3), Math.max(0, samples.length - 3)));
  const names = [...new Set(kept.flatMap((s) => Object.keys(s.values)))].sort();
  return names.map((resource) => {
    const points: Point[] = kept.flatMap((s) => (s.values[resource] === undefined ? [] : [{ t: s.t, v: s.values[resource]! }]));
    const perMinute = slopePerMinute(points);
    const first = points[0]?.v ?? 0;
    const last = points.at(-1)?.v ?? 0;
    const bound = boundOf(resource);
    return { resource, first, last, perMinute, ...(bound && { bound }), grows: bound !== undefined && perMinute > bound.perMinute && last - first > bound.growth };
  });
}

/** The soak's plan for the progress lines (seconds): the goodput probes, the soak itself, the checks after it. */
export function soakPlan(opts: Pick<SoakOptions, 'minutes' | 'strategies'>): PlannedStep[] {
  return [
    { key: 'goodput', phase: 'goodput probes', seconds: opts.strategies.length * (GOODPUT_MS / 1_000 + 1) },
    { key: 'soak', phase: 'soak', seconds: opts.minutes * 60, ownPace: true },
    { key: 'check', phase: 'leftovers and the checker', seconds: 40, ownPace: true },
  ];
}

export async function runSoak(cluster: RunningCluster, opts: SoakOptions, log: (line: string) => void, progress?: Progress): Promise<SoakResult> {
  await ensureReady(cluster);
  await resetStock(liveBase(cluster), INITIAL);
  const rec = makeRecorder('soak');
  const slices: Slice[] = [];
  const recoveryMs: Record<string, number | null> = {};
  const turn = async (s: ChaosStrategy, body: () => Promise<void>) => {
    const leftBefore = await readLeft(cluster, s.store);
    const startMs = Date.now() - rec.t0;
    await body();
    slices.push({ strategy: s.name, store: s.store, startMs, endMs: Date.now() - rec.t0, leftBefore, leftAfter: await readLeft(cluster, s.store), kind: 'load' });
  };
  const goodput: Record<string, number> = {};
  const rates: Record<string, number> = {};
  await stepOf(progress, 'goodput', 'goodput probes', async () => {
    for (const s of opts.strategies) {
      await turn(s, async () => {
        const before = rec.requests.length;
        goodput[s.name] = await closedLoop(rec, cluster.info.nginx, s, GOODPUT_WORKERS, GOODPUT_MS);
        // a strategy a short soak gives no turn of its own is judged on its goodput requests: it must have sold
        const first = rec.requests.slice(before).filter((r) => isSold(r.outcome)).sort((a, b) => a.end - b.end)[0];
        recoveryMs[s.name] = first ? first.end - (rec.requests[before]?.at ?? first.end) : null;
      });
      rates[s.name] = Math.max(5, Math.min(MAX_RATE, Math.round(goodput[s.name]! * LOAD_SHARE)));
      log(`  ${s.name}: goodput ${goodput[s.name]!.toFixed(0)}/s → load ${rates[s.name]}/s`);
    }
  });
  const samples: { t: number; values: Sample }[] = [];
  const sampleErrors: string[] = [];
  await stepOf(progress, 'soak', 'soak', () => soak());
  return stepOf(progress, 'check', 'leftovers and the checker', () => check());

  async function soak(): Promise<void> {
    const soakT0 = Date.now();
    const endAt = soakT0 + opts.minutes * 60_000;
    let sampling = true;
    const sampler = (async () => {
      for (let next = Date.now(); sampling; next += opts.sampleEveryMs) {
        samples.push({ t: Date.now() - soakT0, values: await sampleCluster(cluster, sampleErrors) });
        const wait = next + opts.sampleEveryMs - Date.now();
        if (wait > 0 && sampling) await sleep(Math.min(wait, Math.max(0, endAt - Date.now()) + 10));
      }
    })();
    for (let i = 0; Date.now() < endAt - 1_000; i++) {
      const s = opts.strategies[i % opts.strategies.length]!;
      log(`  turn ${i + 1}: ${s.name} at ${rates[s.name]}/s`);
      await turn(s, async () => {
        const before = rec.requests.length;
        await runLoad(rec, cluster.info.nginx, s, { rate: rates[s.name]!, maxInFlight: 32 }, Math.min(endAt, Date.now() + opts.turnMs));
        const first = rec.requests.slice(before).filter((r) => isSold(r.outcome)).sort((a, b) => a.end - b.end)[0];
        if (recoveryMs[s.name] === null && first) recoveryMs[s.name] = first.end - rec.requests[before]!.at;
      });
    }
    sampling = false;
    await sampler;
    samples.push({ t: Date.now() - soakT0, values: await sampleCluster(cluster, sampleErrors) });
  }

  async function check(): Promise<SoakResult> {
    const leftovers = await leftoversAfter(cluster, CHAOS_TTL_MS + ZK_SESSION_MS + 5_000);
    const sales = (await readSales(liveBase(cluster))) ?? {};
    const history: ChaosHistory = {
      seed: 0,
      strategies: opts.strategies,
      requests: rec.requests,
      slices,
      faults: [],
      sales,
      lastHealMs: 0,
      recoveryMs,
      recoveryBoundMs: opts.turnMs,
      leftovers,
      crashes: [],
      idPrefix: 'soak.',
    };
    const verdict = checkHistory(history);
    const slopes = slopesOf(samples);
    const failures = [...verdict.failures, ...slopes.filter((r) => r.grows).map((r) => `${r.resource} keeps growing: ${r.perMinute.toFixed(2)}/min (bound ${r.bound?.perMinute}/min), ${r.first.toFixed(1)} → ${r.last.toFixed(1)}`)];
    return { history, verdict, samples, sampleErrors, slopes, goodput, rates, ok: failures.length === 0, failures };
  }
}
