// The soak's growth verdict (faults/soak/verdict.ts, turns.ts) over made-up series: steady growth
// is called; noise, a garbage collector's sawtooth, a late peak and the warm-up are not; a run too
// short to judge says so, with the least run that can, and fails nothing.
import { describe, expect, it } from 'vitest';
import { slopePerMinute, type Point } from '../../faults/soak/slope.js';
import { leastSoakMinutes, roundMs, soakTurnMs, TURN_MS, TURN_OVERHEAD_MS } from '../../faults/soak/turns.js';
import {
  floorsPerWindow,
  judgeability,
  judgeResource,
  judgingOf,
  minJudgedMs,
  MIN_WINDOWS,
  slopesOf,
  warmUpEnd,
  windowOf,
  WINDOW_MS,
  type SoakTiming,
} from '../../faults/soak/verdict.js';

const SAMPLE_MS = 10_000;
const HEAP = 'app-0 heap MB';
const FDS = 'app-0 fds';

/** One value every 10 s from 0 to `minutes`. */
function series(minutes: number, value: (t: number, i: number) => number): Point[] {
  return Array.from({ length: (minutes * 60_000) / SAMPLE_MS + 1 }, (_, i) => ({ t: i * SAMPLE_MS, v: value(i * SAMPLE_MS, i) }));
}

/** A fixed pseudo-random sequence in [-1, 1) (a linear congruential generator): noise the same on every run. */
function noise(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1_664_525) + 1_013_904_223) >>> 0;
    return (x / 2 ** 32) * 2 - 1;
  };
}

/** A heap between collections: it climbs `perSample` MB a sample for `teeth` samples, then a collection drops it to `floor`. */
const sawtooth =
  (floor: number, perSample: number, teeth: number, phase = 0) =>
  (_t: number, i: number) =>
    floor + perSample * ((i + phase) % teeth);

/** A 15-minute run whose warm-up (every strategy's first turn) ended at 4 min. */
const LONG: SoakTiming = { warmUpEndsMs: 4 * 60_000, endMs: 15 * 60_000, windowMs: WINDOW_MS, leastMinutes: 9 };
const judgedLong = judgeability(LONG);

const judge = (resource: string, points: Point[], timing: SoakTiming = LONG) => judgeResource(resource, points, judgeability(timing), timing.endMs);

/** What the soak did before floors and warm-up: every sample after the first third, fitted as it came. */
function rawVerdictCalls(points: Point[], bound: { perMinute: number; growth: number }): boolean {
  const kept = points.slice(Math.floor(points.length / 3));
  return slopePerMinute(kept) > bound.perMinute && kept.at(-1)!.v - kept[0]!.v > bound.growth;
}

describe('the soak verdict: steady growth is called', () => {
  it('a heap whose floor climbs 4 MB/min under a collector sawtooth', () => {
    const leak = series(15, (t, i) => 60 + (4 * t) / 60_000 + sawtooth(0, 10, 5)(t, i));
    const row = judge(HEAP, leak);
    expect(row).toMatchObject({ judged: true, grows: true });
    expect(row.perMinute).toBeCloseTo(4, 0);
  });

  it('a count that gains one every 20 s (3/min), steadily', () => {
    const row = judge(
      FDS,
      series(15, (t) => 80 + Math.floor(t / 20_000)),
    );
    expect(row).toMatchObject({ judged: true, grows: true });
    expect(row.last - row.first).toBeGreaterThan(10);
  });

  it('a leak that starts after the warm-up, under noise', () => {
    const r = noise(7);
    const row = judge(
      HEAP,
      series(15, (t) => 60 + 8 * r() + (t > 6 * 60_000 ? (5 * (t - 6 * 60_000)) / 60_000 : 0)),
    );
    expect(row.grows).toBe(true);
  });

  it('the run fails on it: slopesOf names the resource that grows', () => {
    const samples = series(15, (t) => 80 + Math.floor(t / 20_000)).map((p) => ({ t: p.t, values: { [FDS]: p.v, 'redis keys': 4 } }));
    const { growth, rows } = slopesOf(samples, LONG);
    expect(growth.judged).toBe(true);
    expect(rows.filter((x) => x.grows).map((x) => x.resource)).toEqual([FDS]);
  });
});

describe('the soak verdict: what is not growth is not called', () => {
  it('noise around a flat level, on a heap and on a count', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const r = noise(seed);
      expect(
        judge(
          HEAP,
          series(15, () => 60 + 15 * r()),
        ).grows,
        `seed ${seed}`,
      ).toBe(false);
      expect(
        judge(
          FDS,
          series(15, () => 80 + Math.round(4 * r())),
        ).grows,
        `seed ${seed}`,
      ).toBe(false);
    }
  });

  it("a collector's sawtooth, at every phase: 60 MB between collections, one every 50 s", () => {
    for (let phase = 0; phase < 5; phase++) {
      const row = judge(HEAP, series(15, sawtooth(55, 15, 5, phase)));
      expect(row, `phase ${phase}`).toMatchObject({ judged: true, grows: false, first: 55, last: 55 });
    }
  });

  it('a late peak (the last samples before a full collection): the fit of every sample would call it, the floors do not', () => {
    const heap = series(15, (t, i) => (t >= 14.5 * 60_000 ? 250 : sawtooth(55, 10, 4)(t, i)));
    expect(rawVerdictCalls(heap, { perMinute: 3, growth: 10 })).toBe(true);
    expect(judge(HEAP, heap).grows).toBe(false);
  });

  it('growth during the warm-up (pools and caches filling, turn by turn), flat after it', () => {
    // Many strategies: their first round takes 8 of the 15 minutes, more than the third the old fit dropped.
    const timing: SoakTiming = { ...LONG, warmUpEndsMs: 8 * 60_000 };
    const warming = series(15, (t) => (t < 8 * 60_000 ? 60 + (15 * t) / 60_000 : 180 + ((t / SAMPLE_MS) % 3)));
    expect(rawVerdictCalls(warming, { perMinute: 3, growth: 10 })).toBe(true);
    expect(judge(HEAP, warming, timing)).toMatchObject({ judged: true, grows: false });
  });

  it('a resource with no bound (the loop delay) is printed, never called', () => {
    expect(
      judge(
        'app-0 loop delay ms',
        series(15, (t) => t / 1_000),
      ),
    ).toMatchObject({ judged: true, grows: false });
  });

  /** The judged windows of LONG (from 4 min, a minute each), by the window's number. */
  const byWindow = (floor: (k: number) => number) =>
    series(15, (t, i) => (t < 4 * 60_000 ? 60 : floor(Math.floor((t - 4 * 60_000) / 60_000))) + sawtooth(0, 5, 3)(t, i));

  it('a heap that climbs steeply and falls back (a cache filled, then trimmed) ends within its growth bound: not called', () => {
    const hump = judge(
      HEAP,
      byWindow((k) => (k < 10 ? 60 + 6 * k : 68)),
    );
    expect(hump.perMinute).toBeGreaterThan(3);
    expect(hump).toMatchObject({ first: 60, last: 68, grows: false });
  });

  it('floors flat but for the first and last windows, 11 MB apart: above the growth bound, under the slope bound, not called', () => {
    const ends = judge(
      HEAP,
      byWindow((k) => (k === 0 ? 55 : k === 10 ? 66 : 60)),
    );
    expect(ends.perMinute).toBeLessThan(3);
    expect(ends).toMatchObject({ first: 55, last: 66, grows: false });
  });

  it('a resource read in fewer windows than a slope needs (a server that answered late) is not called', () => {
    const late = series(15, (t) => 80 + t / 2_000).filter((p) => p.t >= 13 * 60_000);
    expect(judge(FDS, late)).toMatchObject({ judged: true, grows: false });
  });

  it('a rise above the slope bound but within the growth bound (a step of the pool) is not called', () => {
    // One step of +8 connections halfway: the slope is steep enough, the rise is within the noise bound of 10.
    expect(
      judge(
        FDS,
        series(15, (t) => (t < 9 * 60_000 ? 80 : 88)),
      ),
    ).toMatchObject({ grows: false });
  });
});

describe('the soak verdict: a run too short to judge says so and fails nothing', () => {
  it('a 2-minute run whose heap climbs its first tooth (65 → 113 MB, no full collection yet): the old fit called it; this one does not judge, and names the least run that can', () => {
    const heap = series(2, (t) => 65 + (24 * t) / 60_000);
    expect(rawVerdictCalls(heap, { perMinute: 3, growth: 10 })).toBe(true);
    // 29 strategies in turns sized to a 2-minute run: the first round never finished.
    const timing: SoakTiming = { warmUpEndsMs: undefined, endMs: 2 * 60_000, windowMs: WINDOW_MS, leastMinutes: leastSoakMinutes(29, WINDOW_MS) };
    const { growth, rows } = slopesOf(
      heap.map((p) => ({ t: p.t, values: { [HEAP]: p.v } })),
      timing,
    );
    expect(growth).toEqual({
      judged: false,
      why: 'not every strategy in the plan had a turn, so the run never left its warm-up',
      leastMinutes: timing.leastMinutes,
    });
    expect(rows).toMatchObject([{ resource: HEAP, judged: false, grows: false }]);
  });

  it('a run whose warm-up ended but left less than the judged part needs', () => {
    const timing: SoakTiming = { warmUpEndsMs: 60_000, endMs: 4 * 60_000, windowMs: WINDOW_MS, leastMinutes: 6.5 };
    const growth = judgeability(timing);
    expect(growth).toEqual({
      judged: false,
      why: "3.0 min after the warm-up (every strategy's first turn, 1.0 min); judging needs 5.0 min",
      leastMinutes: 6.5,
    });
    // Even a real leak is not called on so little: the run says it cannot tell.
    expect(
      judge(
        FDS,
        series(4, (t) => 80 + t / 10_000),
        timing,
      ),
    ).toMatchObject({ judged: false, grows: false });
  });

  it('judges from exactly the least judged part on', () => {
    const least = minJudgedMs(WINDOW_MS);
    expect(judgeability({ ...LONG, endMs: LONG.warmUpEndsMs! + least - 1 }).judged).toBe(false);
    expect(judgeability({ ...LONG, endMs: LONG.warmUpEndsMs! + least })).toEqual({
      judged: true,
      fromMs: LONG.warmUpEndsMs,
      windowMs: WINDOW_MS,
      windows: least / WINDOW_MS,
    });
  });

  it('needs long enough for each bound: a resource growing at its bound outgrows its growth bound (fds: 10 at 2/min, 5 min)', () => {
    expect(minJudgedMs(WINDOW_MS)).toBe(5 * 60_000);
    expect(minJudgedMs(4 * 60_000)).toBe(MIN_WINDOWS * 4 * 60_000);
  });
});

describe('the pieces: floors, warm-up, windows and turns', () => {
  it('takes the least value of each whole window, at its middle; a window cut by the end or empty is left out', () => {
    const points = [
      { t: 0, v: 5 },
      { t: 20_000, v: 3 },
      { t: 50_000, v: 9 },
      // On a boundary: the window it opens, not the one it closes.
      { t: 60_000, v: 2 },
      { t: 70_000, v: 7 },
      { t: 190_000, v: 1 },
      { t: 230_000, v: 0 },
      { t: 245_000, v: -5 },
    ];
    // [120, 180) has no sample; [240, 300) is cut by the end at 245.
    expect(floorsPerWindow(points, 0, 245_000, 60_000)).toEqual([
      { t: 30_000, v: 3 },
      { t: 90_000, v: 2 },
      { t: 210_000, v: 0 },
    ]);
    // From a later start, windows are counted from there.
    expect(floorsPerWindow(points, 20_000, 245_000, 60_000)).toEqual([
      { t: 50_000, v: 2 },
      { t: 170_000, v: 1 },
    ]);
  });

  it('ends the warm-up when the last strategy of the plan finishes its first turn', () => {
    const turns = [
      { strategy: 'a', endMs: 10 },
      { strategy: 'b', endMs: 20 },
      { strategy: 'a', endMs: 30 },
      { strategy: 'c', endMs: 40 },
      { strategy: 'b', endMs: 50 },
    ];
    expect(warmUpEnd(['a', 'b', 'c'], turns)).toBe(40);
    expect(warmUpEnd(['a', 'b', 'c', 'd'], turns)).toBeUndefined();
    expect(warmUpEnd(['b'], turns)).toBe(20);
  });

  it('takes windows of a minute, or three samples when they are sparser', () => {
    expect(windowOf(10_000)).toBe(WINDOW_MS);
    expect(windowOf(30_000)).toBe(90_000);
  });

  it('sizes turns so the first round takes at most a third of the run, within bounds', () => {
    expect(soakTurnMs(30, 3)).toBe(TURN_MS.max);
    expect(soakTurnMs(2, 29)).toBe(TURN_MS.min);
    const turn = soakTurnMs(20, 29);
    expect(turn).toBeGreaterThan(TURN_MS.min);
    expect(turn).toBeLessThan(TURN_MS.max);
    expect(roundMs(29, turn)).toBeLessThanOrEqual((20 * 60_000) / 3 + 1);
  });

  it('names as least run the first whose sized turns leave the judged part after the first round', () => {
    for (const strategies of [1, 3, 29]) {
      const least = leastSoakMinutes(strategies, WINDOW_MS);
      const after = (minutes: number) => minutes * 60_000 - roundMs(strategies, soakTurnMs(minutes, strategies));
      expect(after(least), `${strategies} strategies`).toBeGreaterThanOrEqual(minJudgedMs(WINDOW_MS));
      expect(after(least - 0.5), `${strategies} strategies`).toBeLessThan(minJudgedMs(WINDOW_MS));
    }
    // Turns fixed by the caller, and turns slower than planned, ask for longer runs.
    // 3 turns of 10 s and 1.5 s: 34.5 s of warm-up, then 5 min: 5.6 min, so 6.
    expect(leastSoakMinutes(3, WINDOW_MS, { turnMs: 10_000 })).toBe(6);
    expect(leastSoakMinutes(29, WINDOW_MS, { overheadMs: 4 * TURN_OVERHEAD_MS })).toBeGreaterThan(leastSoakMinutes(29, WINDOW_MS));
  });

  it('the long run of these tests is judged over its floors', () => {
    expect(judgedLong).toEqual({ judged: true, fromMs: 4 * 60_000, windowMs: WINDOW_MS, windows: 11 });
  });
});

describe('the verdict at its edges: a bound reached is not exceeded, and missing samples are not values', () => {
  /** LONG's judged part, a minute a window from 4 min; `floor(k)` is window k's value (k < 0: the warm-up). */
  const windows = (floor: (k: number) => number) => series(15, (t) => floor(Math.floor((t - 4 * 60_000) / 60_000)));

  it('floors rising at exactly the slope bound (fds: 2/min), 20 in all: not above the bound, not called', () => {
    const row = judge(
      FDS,
      windows((k) => 80 + 2 * Math.max(0, k)),
    );
    expect(row).toMatchObject({ perMinute: 2, first: 80, last: 100, grows: false });
  });

  it('floors rising by exactly the growth bound (fds: 10), steeply: not above the bound, not called', () => {
    const lastThree = windows((k) => 80 + 5 * (k - 8)).filter((p) => p.t >= 12 * 60_000);
    expect(judge(FDS, lastThree)).toMatchObject({ perMinute: 5, first: 80, last: 90, grows: false });
  });

  it('a resource read in exactly the least number of windows (3) is judged, and its growth called', () => {
    const lastThree = windows((k) => 80 + 10 * (k - 8)).filter((p) => p.t >= 12 * 60_000);
    expect(floorsPerWindow(lastThree, LONG.warmUpEndsMs!, LONG.endMs, WINDOW_MS)).toHaveLength(MIN_WINDOWS);
    expect(judge(FDS, lastThree)).toMatchObject({ first: 80, last: 100, grows: true });
  });

  it('a resource read only during the warm-up has no floor to judge: 0 to 0, flat, not called (and no throw)', () => {
    const warmUpOnly = series(15, () => 80).filter((p) => p.t < 4 * 60_000);
    expect(judge(FDS, warmUpOnly)).toMatchObject({ judged: true, first: 0, last: 0, perMinute: 0, grows: false });
  });

  it('a resource missing from the first samples (a server that answered late) is shown from its first reading, in a run too short to judge', () => {
    const short: SoakTiming = { warmUpEndsMs: undefined, endMs: 2 * 60_000, windowMs: WINDOW_MS, leastMinutes: 9 };
    const samples = series(2, (t) => t).map((p) => ({
      t: p.t,
      values: (p.t < 30_000 ? { [HEAP]: 60 } : { [HEAP]: 60, [FDS]: 70 + p.t / 10_000 }) as Record<string, number>,
    }));
    const fds = slopesOf(samples, short).rows.find((r) => r.resource === FDS);
    expect(fds).toMatchObject({ judged: false, first: 73, last: 82, perMinute: 6, grows: false });
  });

  it('lists the resources in name order, whatever order the samples give them', () => {
    const samples = series(15, () => 1).map((p) => ({ t: p.t, values: { 'redis keys': 4, 'app-1 fds': 9, 'app-0 rss MB': 90 } }));
    expect(slopesOf(samples, LONG).rows.map((r) => r.resource)).toEqual(['app-0 rss MB', 'app-1 fds', 'redis keys']);
  });

  it('a plan with no strategy in it has no warm-up to wait for', () => {
    expect(warmUpEnd([], [])).toBe(0);
  });
});

describe('the slope: least squares per minute', () => {
  it('is exact on two points, and on a line', () => {
    expect(
      slopePerMinute([
        { t: 0, v: 1 },
        { t: 60_000, v: 4 },
      ]),
    ).toBe(3);
    expect(
      slopePerMinute([
        { t: 30_000, v: 10 },
        { t: 90_000, v: 8 },
      ]),
    ).toBe(-2);
    expect(slopePerMinute(series(5, (t) => 7 + t / 20_000))).toBeCloseTo(3, 9);
  });

  it('is 0, not NaN, with no point, one point, or every point at the same time', () => {
    expect(slopePerMinute([])).toBe(0);
    expect(slopePerMinute([{ t: 5, v: 1 }])).toBe(0);
    expect(
      slopePerMinute([
        { t: 5, v: 1 },
        { t: 5, v: 9 },
      ]),
    ).toBe(0);
  });
});

describe('a caller’s judging: a short run over a leak far past the bounds (test/chaos/chaos.test.ts)', () => {
  const RSS = 'app-0 rss MB';
  /** Samples every 2 s for 48 s; the warm-up (one strategy's first turn) ended at 11 s. */
  const SHORT_MS = 2_000;
  const short = (value: (t: number, i: number) => number): Point[] =>
    Array.from({ length: 48_000 / SHORT_MS + 1 }, (_, i) => ({ t: i * SHORT_MS, v: value(i * SHORT_MS, i) }));
  const JUDGE = { windowMs: 10_000, minJudgedMs: 30_000 };
  const timing = (endMs: number, judge = judgingOf(SHORT_MS, JUDGE)): SoakTiming => ({
    warmUpEndsMs: 11_000,
    endMs,
    windowMs: judge.windowMs,
    leastJudgedMs: judge.minJudgedMs,
    leastMinutes: 1,
  });

  it('without one, the window and least judged span come from the sample period, as the CLI has them', () => {
    expect(judgingOf(10_000)).toEqual({ windowMs: WINDOW_MS, minJudgedMs: minJudgedMs(WINDOW_MS) });
    expect(judgingOf(30_000)).toEqual({ windowMs: 90_000, minJudgedMs: minJudgedMs(90_000) });
    // A timing without leastJudgedMs (the reports and callers before it) judges as before.
    expect(judgeability({ ...LONG, leastJudgedMs: minJudgedMs(WINDOW_MS) })).toEqual(judgedLong);
  });

  it('takes the caller’s window and span, but never fewer than MIN_WINDOWS windows', () => {
    expect(judgingOf(SHORT_MS, JUDGE)).toEqual(JUDGE);
    expect(judgingOf(SHORT_MS, { windowMs: 10_000, minJudgedMs: 5_000 })).toEqual({ windowMs: 10_000, minJudgedMs: MIN_WINDOWS * 10_000 });
  });

  it('judges from exactly the caller’s least span on, and says what it needs when short of it', () => {
    expect(judgeability(timing(11_000 + 30_000))).toEqual({ judged: true, fromMs: 11_000, windowMs: 10_000, windows: 3 });
    expect(judgeability(timing(11_000 + 30_000 - 1)).judged).toBe(false);
    expect(judgeability(timing(11_000 + 20_000))).toEqual({
      judged: false,
      why: "0.3 min after the warm-up (every strategy's first turn, 0.2 min); judging needs 0.5 min",
      leastMinutes: 1,
    });
  });

  it('calls a memory leak of 120 MB/min in 48 s, over a sawtooth and noise; not judged by the default windows', () => {
    const r = noise(11);
    const points = short((t, i) => 150 + (120 * t) / 60_000 + sawtooth(0, 4, 3)(t, i) + 2 * r());
    const { growth, rows } = slopesOf(
      points.map((p) => ({ t: p.t, values: { [RSS]: p.v } })),
      timing(48_000),
    );
    expect(growth).toMatchObject({ judged: true, windows: 3 });
    expect(rows[0]).toMatchObject({ resource: RSS, judged: true, grows: true });
    expect(rows[0]!.perMinute).toBeGreaterThan(100);
    const byDefault = slopesOf(
      points.map((p) => ({ t: p.t, values: { [RSS]: p.v } })),
      timing(48_000, judgingOf(SHORT_MS)),
    );
    expect(byDefault.growth.judged).toBe(false);
    expect(byDefault.rows[0]).toMatchObject({ judged: false, grows: false });
  });

  it('does not call a flat memory under the same sawtooth and noise, nor a rise within its growth bound', () => {
    const r = noise(12);
    expect(
      judgeResource(
        RSS,
        short((t, i) => 150 + sawtooth(0, 4, 3)(t, i) + 2 * r()),
        judgeability(timing(48_000)),
        48_000,
      ).grows,
    ).toBe(false);
    // 30 MB/min over the 20 s between the first and last floor: 10 MB, under the 20 MB growth bound.
    expect(
      judgeResource(
        RSS,
        short((t) => 150 + (30 * t) / 60_000),
        judgeability(timing(48_000)),
        48_000,
      ),
    ).toMatchObject({ judged: true, grows: false });
  });

  it('names as least run the first that leaves the caller’s span after the first round', () => {
    // One turn of 10 s and 1.5 s, then 30 s: 41.5 s, so 1 min.
    expect(leastSoakMinutes(1, 10_000, { turnMs: 10_000, judgedMs: 30_000 })).toBe(1);
    expect(leastSoakMinutes(1, 10_000, { turnMs: 10_000 })).toBe(leastSoakMinutes(1, 10_000, { turnMs: 10_000, judgedMs: minJudgedMs(10_000) }));
  });
});
