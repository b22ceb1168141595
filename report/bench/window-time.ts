// Where a throughput window's time goes, part by part (issue 47): the load's own warm-up and
// measured span are fixed, everything else around them is overhead worth seeing.
import type { LoadMarks } from '../../src/load/load.js';
import { spreadOf } from './stats.js';

/** One window's parts, in ms, in the order they happen. */
export interface WindowTime {
  /** POST /stock/reset through the service. */
  reset: number;
  /** The job reaching the load process and autocannon starting. */
  start: number;
  warmup: number;
  measured: number;
  /** The window's end to its last answer: the requests in flight finishing. */
  drain: number;
  /** The last answer to the load process's result (autocannon noticing and stopping). */
  stop: number;
  /** The result's way back to the bench. */
  reply: number;
  /** Units left, read from the store. */
  read: number;
}

export const WINDOW_PARTS = ['reset', 'start', 'warmup', 'measured', 'drain', 'stop', 'reply', 'read'] as const satisfies readonly (keyof WindowTime)[];

/** Epoch ms the bench took around the load: before the reset, at the job's sending and reply, after the store read. */
export interface BenchMarks {
  begin: number;
  sent: number;
  replied: number;
  end: number;
}

export function windowTimeOf(b: BenchMarks, m: LoadMarks, warmupSeconds: number): WindowTime {
  const measureFrom = m.startedAt + warmupSeconds * 1000;
  // a run cut short by its bound may have no answer after the span: its drain is nil
  const lastAnswer = Math.max(m.lastAnswerAt, m.measureTo);
  return {
    reset: b.sent - b.begin,
    start: m.startedAt - b.sent,
    warmup: measureFrom - m.startedAt,
    measured: m.measureTo - measureFrom,
    drain: lastAnswer - m.measureTo,
    stop: m.endedAt - lastAnswer,
    reply: b.replied - m.endedAt,
    read: b.end - b.replied,
  };
}

const LABEL: Record<keyof WindowTime, string> = {
  reset: 'reset',
  start: 'load start',
  warmup: 'warm-up',
  measured: 'measured',
  drain: 'drain',
  stop: 'load stop',
  reply: 'reply',
  read: 'store read',
};

/** A part over all the windows, in ms: its median, its max, and its sum (where the windows' time went). */
export interface PartTime {
  median: number;
  max: number;
  sum: number;
}

/** A bench's windows, part by part, and the cells that drain longest. */
export interface WindowTimeSummary {
  windows: number;
  total: PartTime;
  parts: Record<keyof WindowTime, PartTime>;
  /** The drain is the requests in flight at the window's end being served: about connections ÷ goodput. */
  longestDrains: { cell: string; median: number }[];
}

const partTime = (xs: number[]): PartTime => {
  const s = spreadOf(xs);
  return { median: Math.round(s.median), max: Math.round(s.max), sum: Math.round(xs.reduce((n, x) => n + x, 0)) };
};

export function summarizeWindowTimes(byCell: ReadonlyMap<string, readonly WindowTime[]>, longest = 3): WindowTimeSummary | undefined {
  const all = [...byCell.values()].flat();
  if (all.length === 0) return undefined;
  const parts = Object.fromEntries(WINDOW_PARTS.map((k) => [k, partTime(all.map((t) => t[k]))])) as WindowTimeSummary['parts'];
  const drains = [...byCell].map(([cell, ts]) => ({ cell, median: partTime(ts.map((t) => t.drain)).median }));
  return {
    windows: all.length,
    total: partTime(all.map((t) => WINDOW_PARTS.reduce((n, k) => n + t[k], 0))),
    parts,
    longestDrains: drains.sort((a, b) => b.median - a.median).slice(0, longest),
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const inAll = (ms: number) => `${Math.round(ms / 1000)} s in all`;

/** Lines for "where the time went": a window's parts, median (max, sum over the windows), then the longest drains. */
export function windowTimeLines(w: WindowTimeSummary): string[] {
  return [
    `  a window    ${seconds(w.total.median).padStart(7)}  median of ${w.windows} (max ${seconds(w.total.max)}, ${inAll(w.total.sum)}):`,
    ...WINDOW_PARTS.map((k) => `    ${LABEL[k].padEnd(10)} ${`${w.parts[k].median} ms`.padStart(8)}  (max ${w.parts[k].max} ms, ${inAll(w.parts[k].sum)})`),
    `    longest drains (requests in flight at the window's end, served): ${w.longestDrains.map((d) => `${d.cell} ${seconds(d.median)}`).join(', ')}`,
  ];
}
