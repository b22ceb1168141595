// The progress estimator (src/cli/plan-clock.ts) on a clock of its own: the plan's estimate,
// corrected by each phase's measured pace, and the summary of where the time went.
import { describe, expect, it } from 'vitest';
import { benchPlan, raceEstimate, stepKey } from '../../bench/plan.js';
import { soldOutUnits } from '../../bench/bench.js';
import { MIN_RACE_UNITS } from '../../bench/options.js';
import { parseBenchArgs } from '../../bench/options.js';
import { clockText, PlanClock } from '../../src/cli/plan-clock.js';
import { Progress } from '../../src/cli/progress.js';

function fakeClock() {
  let t = 1_000_000;
  return { now: () => t, advance: (s: number) => (t += s * 1000) };
}

describe('PlanClock', () => {
  it('estimates from the plan, then corrects each phase by its finished steps', () => {
    const c = fakeClock();
    const clock = new PlanClock(
      [
        { key: 'w1', phase: 'windows', seconds: 2 },
        { key: 'w2', phase: 'windows', seconds: 2 },
        { key: 'w3', phase: 'windows', seconds: 2 },
        { key: 'r1', phase: 'races', seconds: 4 },
      ],
      c.now,
    );
    expect(clock.status()).toEqual({ done: 0, total: 4, elapsedSeconds: 0, leftSeconds: 10 });
    clock.begin('w1');
    c.advance(1);
    expect(clock.status().leftSeconds).toBe(9); // 1 s of the first window left
    c.advance(2);
    clock.end('w1'); // took 3 s for 2 planned: windows run at 1.5×, and so (nothing else known) do races
    expect(clock.ratio('windows')).toBe(1.5);
    expect(clock.status()).toEqual({ done: 1, total: 4, elapsedSeconds: 3, leftSeconds: 3 + 3 + 6 });
    clock.begin('w2');
    c.advance(1);
    clock.end('w2'); // 4 s for 4 planned: 1×
    expect(clock.ratio('windows')).toBe(1);
    clock.replan('r1', 8);
    expect(clock.estimate('r1')).toBe(8);
    expect(clock.prefix()).toBe('[2/4 · 0:04 · ~0:10 left]');
    // a step running past its estimate has nothing (not a negative time) left
    clock.begin('w3');
    c.advance(5);
    expect(clock.status().leftSeconds).toBe(8);
  });

  it('does not let a step of its own pace (a cluster start) correct the others', () => {
    const c = fakeClock();
    const clock = new PlanClock(
      [
        { key: 'up', phase: 'cluster', seconds: 30, ownPace: true },
        { key: 'w', phase: 'windows', seconds: 2 },
      ],
      c.now,
    );
    clock.begin('up');
    c.advance(3);
    clock.end('up');
    expect(clock.estimate('w')).toBe(2);
  });

  it('says where the time went, per phase and outside the steps', () => {
    const c = fakeClock();
    const clock = new PlanClock(
      [
        { key: 'a', phase: 'windows', seconds: 1 },
        { key: 'b', phase: 'races', seconds: 1 },
      ],
      c.now,
    );
    c.advance(2);
    clock.begin('a');
    c.advance(3);
    clock.end('a');
    clock.begin('b');
    c.advance(5);
    clock.end('b');
    expect(clock.phases()).toEqual([
      { phase: 'windows', steps: 1, seconds: 3 },
      { phase: 'races', steps: 1, seconds: 5 },
      { phase: 'other', steps: 0, seconds: 2 },
    ]);
  });

  it('writes times as m:ss and h:mm:ss', () => {
    expect([clockText(0), clockText(65.4), clockText(3725)]).toEqual(['0:00', '1:05', '1:02:05']);
  });
});

describe('the bench plan', () => {
  it('has every warm-up, ceiling, window and race apart of the run', () => {
    const o = parseBenchArgs(['--rounds', '3', '--warmup', '0.5', '--window', '1.5']);
    const plan = benchPlan(
      o,
      [
        { key: 'none/three', raceApart: true },
        { key: 'sql-update/three', raceApart: false },
      ],
      ['three'],
      true,
    );
    expect(plan.filter((s) => s.phase === 'windows')).toHaveLength(6);
    expect(plan.filter((s) => s.phase === 'ceiling')).toHaveLength(3);
    // sql-update's last window is its race
    expect(plan.filter((s) => s.phase === 'races').map((s) => s.key)).toEqual([stepKey.race('none/three')]);
    expect(plan.find((s) => s.phase === 'windows')?.seconds).toBe(2.5);
  });

  it("sizes a last window's stock to sell out in its span, or leaves a lock too slow for that to a race apart", () => {
    const o = parseBenchArgs([]);
    expect(o.soldOutWindows).toBe(true);
    // 500/s for 0.3 s of warm-up and 0.8 of the 0.5 s span
    expect(soldOutUnits(o, 500)).toBe(350);
    expect(soldOutUnits(o, 20)).toBe(MIN_RACE_UNITS);
    expect(soldOutUnits(o, 100_000)).toBe(o.courseInitial);
    expect(soldOutUnits(o, 5)).toBeUndefined();
    expect(soldOutUnits(o, 0)).toBeUndefined();
    for (const args of [['--separate-races'], ['--full'], ['--requests', '300'], ['--rounds', '1'], ['--raceSeconds', '2']])
      expect(parseBenchArgs(args).soldOutWindows).toBe(false);
  });

  it('sizes a race from the goodput measured: units at that rate, the rest answered faster, at most maxSeconds', () => {
    expect(raceEstimate({ requests: 1100, initial: 1000 }, 500, 0, 60)).toBeCloseTo(1000 / 500 + 100 / 500 + 0.5);
    expect(raceEstimate({ requests: 5100, initial: 5000 }, 10, 0, 60)).toBe(60.5);
  });
});

describe('Progress', () => {
  it('prefixes each line with the position, the elapsed time and the time left; plain lines when not live', async () => {
    const c = fakeClock();
    const lines: string[] = [];
    const p = new Progress((l) => lines.push(l), undefined, false, c.now);
    p.add([
      { key: 'a', phase: 'windows', seconds: 10 },
      { key: 'b', phase: 'windows', seconds: 10 },
    ]);
    await p.step('a', 'first', async () => {
      c.advance(5);
      p.transient('halfway');
    });
    p.line('a done');
    p.summary('test');
    expect(lines[0]).toBe('[0/2 · 0:05 · ~0:15 left] halfway');
    expect(lines[1]).toBe('[1/2 · 0:05 · ~0:05 left] a done');
    expect(lines[2]).toBe('test: where the time went');
    expect(lines[3]).toMatch(/^ {2}windows +0:05 +100 % {2}\(1 step\)$/);
  });

  it('on a terminal, redraws one status line under the lines, and leaves none after the summary', async () => {
    const c = fakeClock();
    const out: string[] = [];
    const p = new Progress(undefined, { isTTY: true, write: (chunk: string) => out.push(chunk) }, true, c.now);
    p.add([{ key: 'a', phase: 'windows', seconds: 10 }]);
    await p.step('a', 'window a', async () => {
      p.transient('3/10 answered');
      c.advance(4);
    });
    p.line('a done');
    p.summary('test');
    const screen = out.join('');
    expect(out).toContain('\r\x1b[2K[0/1 · 0:00 · ~0:10 left] window a · 3/10 answered');
    expect(screen).toContain('\r\x1b[2K[1/1 · 0:04 · ~0:00 left] a done\n');
    // after the summary's first line, plain lines only
    expect(screen.slice(screen.indexOf('test: where the time went'))).not.toContain('\x1b');
  });
});
