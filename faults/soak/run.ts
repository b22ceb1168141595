// The soak: steady load at about 70 % of each strategy's goodput, the strategies in turn, for
// minutes; the cluster's resources sampled throughout. At the end the chaos checker judges the
// history (nothing oversold, every answer documented), and a resource that keeps growing after the
// warm-up fails it (verdict.ts); a run too short to judge growth says so and does not fail.
import type { RunningCluster } from '../../src/cluster/cluster.js';
import { sleep } from '../../src/time.js';
import type { PlannedStep } from '../../src/cli/plan-clock.js';
import { stepOf, type Progress } from '../../src/cli/progress.js';
import { ensureReady, liveBase } from '../cluster-ops.js';
import { isSold } from '../client.js';
import { readSales, resetStock } from '../service.js';
import { CHAOS_NEEDS, checkHistory, type ChaosVerdict } from '../chaos/checker.js';
import type { ChaosHistory, ChaosStrategy, Slice } from '../chaos/history.js';
import { leftoversAfter } from '../chaos/leftovers.js';
import { makeRecorder, readLeft } from '../chaos/run.js';
import { CHAOS_TTL_MS, runLoad, sendRecorded, type Recorder } from '../chaos/workload.js';
import { ZK_SESSION_MS } from '../locks.js';
import { sampleCluster, type Sample } from './sample.js';
import { leastSoakMinutes, soakTurnMs, TURN_OVERHEAD_MS } from './turns.js';
import { judgingOf, slopesOf, warmUpEnd, type GrowthJudging, type Judgeability, type SlopeRow } from './verdict.js';

export interface SoakOptions {
  minutes: number;
  strategies: ChaosStrategy[];
  sampleEveryMs: number;
  /** Each strategy's turn; absent: sized to the run (turns.ts). */
  turnMs?: number;
  /** The floors' window and the least judged span; absent: from the sample period (verdict.ts's judgingOf). */
  judge?: GrowthJudging;
}

export interface SoakResult {
  history: ChaosHistory;
  verdict: ChaosVerdict;
  samples: { t: number; values: Sample }[];
  sampleErrors: string[];
  slopes: SlopeRow[];
  /** Whether the run was long enough to judge growth, and if not, the least that is. */
  growth: Judgeability;
  /** Each strategy's turn, as run. */
  turnMs: number;
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

/** A turn's time beyond its load, as this run's full turns took it (never below the planned estimate). */
function overheadOf(turns: readonly { startMs: number; endMs: number }[], turnMs: number): number {
  // The last turn is cut short by the run's end.
  const full = turns.slice(0, -1);
  if (full.length === 0) return TURN_OVERHEAD_MS;
  return Math.max(TURN_OVERHEAD_MS, full.reduce((n, t) => n + (t.endMs - t.startMs - turnMs), 0) / full.length);
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
  const turnMs = opts.turnMs ?? soakTurnMs(opts.minutes, opts.strategies.length);
  const rec = makeRecorder('soak');
  const slices: Slice[] = [];
  const recoveryMs: Record<string, number | null> = {};
  const turn = async (s: ChaosStrategy, body: () => Promise<void>) => {
    const leftBefore = await readLeft(cluster, s.store);
    const startMs = Date.now() - rec.t0;
    await body();
    slices.push({
      strategy: s.name,
      store: s.store,
      startMs,
      endMs: Date.now() - rec.t0,
      leftBefore,
      leftAfter: await readLeft(cluster, s.store),
      kind: 'load',
    });
  };
  const goodput: Record<string, number> = {};
  const rates: Record<string, number> = {};
  await stepOf(progress, 'goodput', 'goodput probes', async () => {
    for (const s of opts.strategies) {
      await turn(s, async () => {
        const before = rec.requests.length;
        goodput[s.name] = await closedLoop(rec, cluster.info.nginx, s, GOODPUT_WORKERS, GOODPUT_MS);
        // a strategy a short soak gives no turn of its own is judged on its goodput requests: it must have sold
        const first = rec.requests
          .slice(before)
          .filter((r) => isSold(r.outcome))
          .sort((a, b) => a.end - b.end)[0];
        recoveryMs[s.name] = first ? first.end - (rec.requests[before]?.at ?? first.end) : null;
      });
      rates[s.name] = Math.max(5, Math.min(MAX_RATE, Math.round(goodput[s.name]! * LOAD_SHARE)));
      log(`  ${s.name}: goodput ${goodput[s.name]!.toFixed(0)}/s → load ${rates[s.name]}/s`);
    }
  });
  const samples: { t: number; values: Sample }[] = [];
  const sampleErrors: string[] = [];
  /** The soak's own turns, ms after its start: the warm-up ends when each strategy has had one. */
  const soakTurns: { strategy: string; startMs: number; endMs: number }[] = [];
  await stepOf(progress, 'soak', 'soak', () => soak());
  return stepOf(progress, 'check', 'leftovers and the checker', () => check());

  async function soak(): Promise<void> {
    const soakT0 = Date.now();
    const endAt = soakT0 + opts.minutes * 60_000;
    let sampling = true;
    const sampler = (async () => {
      // Until the end, one sample a period; the sample after the last turn is taken below. (Past the
      // end, samples every few ms while the last turn drained would weigh its tail in the fit.)
      for (let next = Date.now(); sampling && Date.now() < endAt; next += opts.sampleEveryMs) {
        samples.push({ t: Date.now() - soakT0, values: await sampleCluster(cluster, sampleErrors) });
        const wait = Math.min(next + opts.sampleEveryMs, endAt) - Date.now();
        if (wait > 0 && sampling) await sleep(wait);
      }
    })();
    for (let i = 0; Date.now() < endAt - 1_000; i++) {
      const s = opts.strategies[i % opts.strategies.length]!;
      log(`  turn ${i + 1}: ${s.name} at ${rates[s.name]}/s`);
      const startMs = Date.now() - soakT0;
      await turn(s, async () => {
        const before = rec.requests.length;
        await runLoad(rec, cluster.info.nginx, s, { rate: rates[s.name]!, maxInFlight: 32 }, Math.min(endAt, Date.now() + turnMs));
        const first = rec.requests
          .slice(before)
          .filter((r) => isSold(r.outcome))
          .sort((a, b) => a.end - b.end)[0];
        if (recoveryMs[s.name] === null && first) recoveryMs[s.name] = first.end - rec.requests[before]!.at;
      });
      soakTurns.push({ strategy: s.name, startMs, endMs: Date.now() - soakT0 });
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
      recoveryBoundMs: turnMs,
      leftovers,
      crashes: [],
      idPrefix: 'soak.',
    };
    // A soak injects no fault: its strategies are judged on their requests alone.
    const verdict = checkHistory(history, { requests: CHAOS_NEEDS.requests, faults: 0 });
    const { windowMs, minJudgedMs } = judgingOf(opts.sampleEveryMs, opts.judge);
    const { growth, rows: slopes } = slopesOf(samples, {
      warmUpEndsMs: warmUpEnd(
        opts.strategies.map((s) => s.name),
        soakTurns,
      ),
      endMs: samples.at(-1)?.t ?? 0,
      windowMs,
      leastJudgedMs: minJudgedMs,
      leastMinutes: leastSoakMinutes(opts.strategies.length, windowMs, {
        ...(opts.turnMs !== undefined && { turnMs }),
        overheadMs: overheadOf(soakTurns, turnMs),
        judgedMs: minJudgedMs,
      }),
    });
    const failures = [
      ...verdict.failures,
      ...slopes
        .filter((r) => r.grows)
        .map(
          (r) =>
            `${r.resource} keeps growing: ${r.perMinute.toFixed(2)}/min (bound ${r.bound?.perMinute}/min), floors ${r.first.toFixed(1)} → ${r.last.toFixed(1)}`,
        ),
    ];
    return { history, verdict, samples, sampleErrors, slopes, growth, turnMs, goodput, rates, ok: failures.length === 0, failures };
  }
}
