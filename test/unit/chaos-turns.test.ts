// How a chaos run shares its time among the strategies (faults/chaos/turns.ts): whole rounds, each
// turn sized again from the time left, so the last strategies in the plan get their share even when
// the time between turns runs longer than planned. The run loop is replayed here on a made-up clock.
import { describe, expect, it } from 'vitest';
import { nextTurnMs, overheadSoFar, plannedTurns, TURN_MS, TURN_OVERHEAD_MS } from '../../faults/chaos/turns.js';

/** The run's loop (faults/chaos/run.ts) on a made-up clock: the load time each strategy got. */
function replay(seconds: number, strategies: number, gapMs: (turn: number) => number): number[] {
  const got: number[] = Array.from({ length: strategies }, () => 0);
  const planned = plannedTurns(seconds, strategies);
  const endAt = seconds * 1_000;
  let now = 0;
  let loads = 0;
  for (let i = 0; ; i++) {
    const ms = nextTurnMs(endAt - now, planned - i, overheadSoFar(now, loads, i));
    if (ms === undefined) break;
    // The load stops at the run's end; the time around it (count reads, late answers) comes on top.
    const load = Math.min(ms, Math.max(0, endAt - now));
    got[i % strategies]! += load;
    loads += load;
    now += load + gapMs(i);
  }
  return got;
}

describe('chaos turns', () => {
  it('plans whole rounds, as many as keep each turn within its longest', () => {
    expect(plannedTurns(600, 29)).toBe(29);
    expect(plannedTurns(600, 5)).toBe(30);
    expect(plannedTurns(45, 5)).toBe(5);
    expect(plannedTurns(45, 0)).toBe(0);
  });

  it('shares the time left among the turns owed, less each turn’s overhead, within bounds', () => {
    expect(nextTurnMs(600_000, 29)).toBe(Math.floor(600_000 / 29 - TURN_OVERHEAD_MS));
    expect(nextTurnMs(100_000, 1)).toBe(TURN_MS.max);
    // Every planned turn taken: what is left goes round again, one turn at a time.
    expect(nextTurnMs(10_000, 0)).toBe(10_000 - TURN_OVERHEAD_MS);
    expect(nextTurnMs(TURN_OVERHEAD_MS + TURN_MS.least, 1)).toBe(TURN_MS.least);
    expect(nextTurnMs(TURN_OVERHEAD_MS + TURN_MS.least - 1, 1)).toBeUndefined();
    // Too short a share for the turns owed: the least turn, while the time lasts.
    expect(nextTurnMs(30_000, 29)).toBe(TURN_MS.least);
  });

  it('gives every strategy of a 10-minute, 29-strategy run a turn, and shares fairly, though the gaps run longer than planned', () => {
    // 3 s between turns instead of the planned 2, and a paused holder's 8 s answer every seventh turn.
    const got = replay(600, 29, (i) => 3_000 + (i % 7 === 6 ? 8_000 : 0));
    expect(got.every((ms) => ms > 0)).toBe(true);
    // A long gap just before the last turn still costs that turn; no strategy gets less than half the most.
    expect(Math.min(...got)).toBeGreaterThanOrEqual(0.5 * Math.max(...got));
  });

  it('leaves each later turn the time between loads measured so far, when more than planned', () => {
    expect(overheadSoFar(0, 0, 0)).toBe(TURN_OVERHEAD_MS);
    expect(overheadSoFar(100_000, 80_000, 4)).toBe(5_000);
    expect(nextTurnMs(100_000, 4, 5_000)).toBe(20_000);
    expect(nextTurnMs(60_000, 4, 5_000)).toBe(10_000);
    // Less than planned: the plan's estimate stands.
    expect(nextTurnMs(60_000, 4, 500)).toBe(15_000 - TURN_OVERHEAD_MS);
  });

  it('the fixed turns it replaces left the last strategies of that run with almost nothing', () => {
    // Turns of min(20 s, max(8 s, run / strategies)) until 4 s before the end, the same gaps.
    const fixed: number[] = Array.from({ length: 29 }, () => 0);
    const turn = Math.min(20_000, Math.max(8_000, 600_000 / 29));
    for (let i = 0, now = 0; now < 600_000 - 4_000; i++) {
      const load = Math.min(turn, 600_000 - now);
      fixed[i % 29]! += load;
      now += load + 3_000 + (i % 7 === 6 ? 8_000 : 0);
    }
    expect(Math.min(...fixed)).toBeLessThan(0.2 * Math.max(...fixed));
  });

  it('goes round several times in a long run with few strategies, each getting about the same', () => {
    const got = replay(600, 5, () => 2_500);
    expect(Math.min(...got)).toBeGreaterThanOrEqual(0.9 * Math.max(...got));
  });

  it('a run too short for every strategy gives the first ones the least turn and stops at the end', () => {
    const got = replay(45, 29, () => TURN_OVERHEAD_MS);
    expect(got.slice(0, 10).every((ms) => ms === TURN_MS.least)).toBe(true);
    expect(got.filter((ms) => ms === 0).length).toBeGreaterThan(0);
  });
});
