// The window-span study's report (bench/window-span.ts writes it, docs/bench.md quotes it): goodput
// per span cut from the same windows, so a shorter window is judged against the longer one it
// would replace, measured together.
import { spreadOf, type Spread } from './stats.js';

/** A span of a window: its discarded warm-up and its measured length, in seconds. */
export interface WindowSpan {
  label: string;
  warmup: number;
  seconds: number;
}

export interface WindowSpanCell {
  /** strategy/topology */
  cell: string;
  /** Goodput (200s a second) per span label, one per round. */
  goodput: Record<string, number[]>;
}

export interface WindowSpanReport {
  stamp: string;
  rounds: number;
  connections: number;
  /** The first is the reference the others are divided by. */
  spans: WindowSpan[];
  cells: WindowSpanCell[];
  /** Per span: each cell's median ÷ the reference's median, as a spread over the cells. */
  ratio: Record<string, Spread>;
  /** Per span: the median over cells of (max − min) ÷ median across the rounds. */
  relativeRange: Record<string, number>;
}

/** Goodput of the span [warm-up, warm-up + seconds) of one window, from when its 200s came (ms). */
export function goodputIn(okTimes: readonly number[], s: WindowSpan): number {
  const from = s.warmup * 1000;
  const to = from + s.seconds * 1000;
  return okTimes.filter((t) => t >= from && t < to).length / s.seconds;
}

export function summarizeSpans(spans: readonly WindowSpan[], cells: readonly WindowSpanCell[]): Pick<WindowSpanReport, 'ratio' | 'relativeRange'> {
  const reference = spans[0];
  const ratio: Record<string, Spread> = {};
  const relativeRange: Record<string, number> = {};
  if (!reference) return { ratio, relativeRange };
  for (const s of spans) {
    const medians = cells.map((c) => spreadOf(c.goodput[s.label] ?? []));
    ratio[s.label] = spreadOf(cells.map((c, i) => (medians[i]?.median ?? 0) / (spreadOf(c.goodput[reference.label] ?? []).median || 1)));
    relativeRange[s.label] = spreadOf(medians.map((m) => (m.median > 0 ? (m.max - m.min) / m.median : 0))).median;
  }
  return { ratio, relativeRange };
}
