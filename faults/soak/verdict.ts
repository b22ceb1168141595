// Whether a resource keeps growing over a soak, judged from its samples alone (pure, so the tests
// feed it made-up series). Three rules keep it from calling a healthy service leaky:
// - warm-up: nothing before every strategy in the plan has had its first soak turn is judged (a
//   turn fills its strategy's pools and caches, and the strategies differ);
// - floors: the least value of each window is fitted, not every sample, because a garbage
//   collection moves a heap's peaks, not its floor, while a leak raises the floor;
// - length: a judged part too short for a resource growing at its bound to outgrow its noise is
//   not judged at all: the verdict says so, and how long a run must be to judge.
import { slopePerMinute, type Point } from './slope.js';

/** Per minute, and the growth over the judged part that stands out of the noise: both exceeded = it keeps growing. */
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

/**
 * The window a floor is taken over: longer than the gaps between a busy instance's full
 * collections (a 30-minute soak's heap peaks lasted under a minute), and three samples at least.
 */
export const WINDOW_MS = 60_000;
export const windowOf = (sampleEveryMs: number): number => Math.max(WINDOW_MS, 3 * sampleEveryMs);
/** Floors a slope is fitted to, at least. */
export const MIN_WINDOWS = 3;
/**
 * The judged part's least length: enough windows, and long enough that a resource growing at
 * exactly its bound grows by its growth bound (growth / perMinute); shorter, a slow leak would pass
 * as flat.
 */
export const minJudgedMs = (windowMs: number): number =>
  Math.max(MIN_WINDOWS * windowMs, ...Object.values(SLOPE_BOUNDS).map((b) => (b.growth / b.perMinute) * 60_000));

/**
 * How growth is judged, when a caller sets it rather than the sample period: a test judging a short
 * run over a leak far past the bounds (test/chaos/chaos.test.ts). The CLI never sets it.
 */
export interface GrowthJudging {
  windowMs: number;
  /** The judged part's least length; never below MIN_WINDOWS windows, as fewer floors judge nothing. */
  minJudgedMs: number;
}

/** The window and least judged span of a run sampled every `sampleEveryMs`: the caller's, or windowOf and minJudgedMs. */
export function judgingOf(sampleEveryMs: number, judge?: GrowthJudging): GrowthJudging {
  if (judge === undefined) {
    const windowMs = windowOf(sampleEveryMs);
    return { windowMs, minJudgedMs: minJudgedMs(windowMs) };
  }
  return { windowMs: judge.windowMs, minJudgedMs: Math.max(MIN_WINDOWS * judge.windowMs, judge.minJudgedMs) };
}

export interface SlopeRow {
  resource: string;
  /** The first and last floor of the judged part (of the samples, when not judged). */
  first: number;
  last: number;
  perMinute: number;
  bound?: Bound;
  grows: boolean;
  /** false: the run was too short to judge growth (absent in reports written before the soak could say so). */
  judged?: boolean;
}

/** When the soak's turns and samples were, ms after the soak's start. */
export interface SoakTiming {
  /** When every strategy in the plan had had its first soak turn; undefined: some never had one. */
  warmUpEndsMs: number | undefined;
  /** The last sample's time. */
  endMs: number;
  /** The floors' window (windowOf the sample period, or the caller's: judgingOf). */
  windowMs: number;
  /** The judged part's least length; absent: minJudgedMs(windowMs). */
  leastJudgedMs?: number;
  /** The least --minutes whose run can be judged, from the plan (see turns.ts). */
  leastMinutes: number;
}

export type Judgeability =
  | { judged: true; fromMs: number; windowMs: number; windows: number }
  /** `why` ends "too short to judge"'s sentence; `leastMinutes` is the least --minutes that can. */
  | { judged: false; why: string; leastMinutes: number };

/** Whether the run is long enough to judge growth, and from when. */
export function judgeability(t: SoakTiming): Judgeability {
  const minutes = (ms: number) => (ms / 60_000).toFixed(1);
  if (t.warmUpEndsMs === undefined)
    return { judged: false, why: 'not every strategy in the plan had a turn, so the run never left its warm-up', leastMinutes: t.leastMinutes };
  const span = t.endMs - t.warmUpEndsMs;
  const least = t.leastJudgedMs ?? minJudgedMs(t.windowMs);
  if (span < least) {
    return {
      judged: false,
      why: `${minutes(Math.max(0, span))} min after the warm-up (every strategy's first turn, ${minutes(t.warmUpEndsMs)} min); judging needs ${minutes(least)} min`,
      leastMinutes: t.leastMinutes,
    };
  }
  return { judged: true, fromMs: t.warmUpEndsMs, windowMs: t.windowMs, windows: Math.floor(span / t.windowMs) };
}

/**
 * The least value of each whole window from `fromMs` to `endMs`, placed at the window's middle. A
 * window cut short by the end is left out: with fewer samples its least value would sit higher.
 */
export function floorsPerWindow(points: readonly Point[], fromMs: number, endMs: number, windowMs: number): Point[] {
  const floors: Point[] = [];
  for (let start = fromMs; start + windowMs <= endMs; start += windowMs) {
    const inside = points.filter((p) => p.t >= start && p.t < start + windowMs);
    if (inside.length > 0) floors.push({ t: start + windowMs / 2, v: Math.min(...inside.map((p) => p.v)) });
  }
  return floors;
}

/** One resource: growing when its floors' slope is above the bound and the floors rose by more than its growth bound. */
export function judgeResource(resource: string, points: readonly Point[], run: Judgeability, endMs: number): SlopeRow {
  const bound = boundOf(resource);
  // Not judged: the samples are printed as they came, for what they show.
  const fitted = run.judged ? floorsPerWindow(points, run.fromMs, endMs, run.windowMs) : points;
  const perMinute = slopePerMinute(fitted);
  const first = fitted[0]?.v ?? 0;
  const last = fitted.at(-1)?.v ?? 0;
  const grows = run.judged && bound !== undefined && fitted.length >= MIN_WINDOWS && perMinute > bound.perMinute && last - first > bound.growth;
  return { resource, first, last, perMinute, ...(bound && { bound }), grows, judged: run.judged };
}

/** Every resource the samples hold, judged over the same part of the run. */
export function slopesOf(
  samples: readonly { t: number; values: Readonly<Record<string, number>> }[],
  timing: SoakTiming,
): { growth: Judgeability; rows: SlopeRow[] } {
  const growth = judgeability(timing);
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.values)))].sort();
  const rows = names.map((resource) => {
    const points: Point[] = samples.flatMap((s) => (s.values[resource] === undefined ? [] : [{ t: s.t, v: s.values[resource]! }]));
    return judgeResource(resource, points, growth, timing.endMs);
  });
  return { growth, rows };
}

/**
 * When every strategy in `plan` had finished its first turn (ms after the soak's start), from the
 * turns in the order they ran; undefined while one has not.
 */
export function warmUpEnd(plan: readonly string[], turns: readonly { strategy: string; endMs: number }[]): number | undefined {
  const waiting = new Set(plan);
  for (const turn of turns) {
    waiting.delete(turn.strategy);
    if (waiting.size === 0) return turn.endMs;
  }
  return waiting.size === 0 ? 0 : undefined;
}
