// A throughput window's time, part by part (issue 47): the parts add up to the whole, and the
// summary names the parts and the cells that drain longest.
import { describe, expect, it } from 'vitest';
import { summarizeWindowTimes, WINDOW_PARTS, windowTimeLines, windowTimeOf, type WindowTime } from '../../report/bench/window-time.js';

describe("a throughput window's time", () => {
  it('splits the bench’s and the load process’s marks into parts that add up to the whole', () => {
    const begin = 1_000_000;
    const t = windowTimeOf(
      { begin, sent: begin + 40, replied: begin + 2_700, end: begin + 2_706 },
      { startedAt: begin + 42, measureTo: begin + 2_042, lastAnswerAt: begin + 2_642, endedAt: begin + 2_650 },
      0.5,
    );
    expect(t).toEqual({ reset: 40, start: 2, warmup: 500, measured: 1_500, drain: 600, stop: 8, reply: 50, read: 6 });
    expect(WINDOW_PARTS.reduce((n, k) => n + t[k], 0)).toBe(2_706);
  });

  it('has no drain when nothing was answered after the span (a run cut short), and still adds up', () => {
    const t = windowTimeOf({ begin: 0, sent: 10, replied: 2_100, end: 2_105 }, { startedAt: 10, measureTo: 2_010, lastAnswerAt: 1_990, endedAt: 2_090 }, 0.5);
    expect(t.drain).toBe(0);
    expect(t.stop).toBe(80);
    expect(WINDOW_PARTS.reduce((n, k) => n + t[k], 0)).toBe(2_105);
  });

  it('summarizes the median, max and sum of each part and names the longest drains', () => {
    const w = (drain: number, reset = 30): WindowTime => ({ reset, start: 1, warmup: 500, measured: 1_500, drain, stop: 5, reply: 1, read: 4 });
    const s = summarizeWindowTimes(
      new Map([
        ['sql-update/one', [w(100), w(120), w(140)]],
        ['zk-sequential/one', [w(8_000, 90), w(7_000), w(9_000)]],
        ['mutex/one', [w(300), w(200), w(250)]],
      ]),
      2,
    );
    expect(s?.windows).toBe(9);
    expect(s?.parts.drain).toEqual({ median: 250, max: 9_000, sum: 360 + 24_000 + 750 });
    expect(s?.parts.reset).toEqual({ median: 30, max: 90, sum: 8 * 30 + 90 });
    expect(s?.total).toEqual({ median: 2_041 + 250, max: 2_041 + 9_000, sum: 9 * 2_041 + 60 + 25_110 });
    expect(s?.longestDrains).toEqual([
      { cell: 'zk-sequential/one', median: 8_000 },
      { cell: 'mutex/one', median: 250 },
    ]);
    const lines = windowTimeLines(s!);
    expect(lines[0]).toContain('median of 9');
    expect(lines.find((l) => l.includes('drain'))).toContain('25 s in all');
    for (const label of ['reset', 'load start', 'warm-up', 'measured', 'drain', 'load stop', 'reply', 'store read'])
      expect(lines.some((l) => l.includes(label))).toBe(true);
    expect(lines.at(-1)).toContain('zk-sequential/one 8.00 s');
  });

  it('has nothing to say without windows', () => {
    expect(summarizeWindowTimes(new Map())).toBeUndefined();
  });
});
