// The window-span study's arithmetic: a span's goodput from arrival times, and the ratios and ranges
// docs/bench.md quotes, over made-up windows whose answers are known.
import { describe, expect, it } from 'vitest';
import { windowSpanBlock } from '../../docgen/window-span.js';
import { goodputIn, summarizeSpans, type WindowSpan, type WindowSpanReport } from '../../report/bench/window-span.js';

const LONG: WindowSpan = { label: '0.5+1.5', warmup: 0.5, seconds: 1.5 };
const SHORT: WindowSpan = { label: '0.4+1.0', warmup: 0.4, seconds: 1.0 };

/** A 200 every `gapMs` from `fromMs` to 2000 ms, and none before: a window that starts cold. */
const arrivals = (fromMs: number, gapMs: number) => Array.from({ length: Math.floor((2000 - fromMs) / gapMs) }, (_x, i) => fromMs + i * gapMs);

describe('window spans', () => {
  it('counts the 200s inside [warm-up, warm-up + seconds) only, per second', () => {
    const times = arrivals(0, 10); // 100/s
    expect(goodputIn(times, LONG)).toBe(100);
    expect(goodputIn(times, SHORT)).toBe(100);
    // nothing before 450 ms: the short span measures 0.95 s of its 1.0 at 100/s, the long one all of its 1.5
    expect(goodputIn(arrivals(450, 10), SHORT)).toBe(95);
    expect(goodputIn(arrivals(450, 10), LONG)).toBe(100);
  });

  it('divides each row by the reference span and states the rounds’ range', () => {
    const cells = [
      { cell: 'a/one', goodput: { [LONG.label]: [100, 120, 110], [SHORT.label]: [99, 121, 110] } },
      { cell: 'b/one', goodput: { [LONG.label]: [10, 10, 10], [SHORT.label]: [8, 8, 8] } },
    ];
    const s = summarizeSpans([LONG, SHORT], cells);
    expect(s.ratio[LONG.label]).toMatchObject({ median: 1, min: 1, max: 1 });
    expect(s.ratio[SHORT.label]).toMatchObject({ median: 0.9, min: 0.8, max: 1 });
    // the medians of a/one's 20/110 (22/110 short) and b/one's 0
    expect(s.relativeRange[LONG.label]).toBeCloseTo(10 / 110);
    expect(s.relativeRange[SHORT.label]).toBeCloseTo(11 / 110);
    const report: WindowSpanReport = { stamp: 'x', rounds: 3, connections: 100, spans: [LONG, SHORT], cells, ...s };
    const block = windowSpanBlock(report, 'docs/runs/window-span-x.json', 'en');
    expect(block).toContain('| 0.4 s + 1.0 s | 0.900 (0.80–1.00) | 10 % |');
    expect(block).toContain('b/one 0.80 (8/s ÷ 10/s)');
    expect(windowSpanBlock(report, 'docs/runs/window-span-x.json', 'zh')).toContain('0.4 秒 + 1.0 秒');
  });
});
