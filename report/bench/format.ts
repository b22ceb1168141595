// Cell texts shared by the markdown table and the HTML report, so both say the same thing.
import type { Lang } from '../../src/lang.js';
import { asExpected, verdictOf, type Ceiling, type RaceFigures, type RunResult, type SoldCheck } from './report.js';
import { BENCH_WORDS } from './words.js';
import type { Spread } from './stats.js';

export const int = (n: number): string => String(Math.round(n));

/** "812 (790–840)": the median and the range of the repeats. */
export function spreadText(s: Spread): string {
  return s.samples.length > 1 ? `${int(s.median)} (${int(s.min)}–${int(s.max)})` : int(s.median);
}

/** A run whose measured windows sold nothing: it has no speed to compare, only a finding. */
export const soldNothing = (r: Pick<RunResult, 'throughput'>): boolean => r.throughput.goodput.median === 0 && r.throughput.goodput.max === 0;

/** "2.58×", or what a run that sold nothing in its windows is instead of a ratio of 0.00. */
export function efficiencyText(r: Pick<RunResult, 'efficiency' | 'throughput'> | undefined, lang: Lang = 'en'): string {
  if (!r || r.efficiency === null) return 'n/a';
  return soldNothing(r) ? BENCH_WORDS[lang].soldNothing : `${r.efficiency.toFixed(2)}×`;
}

/** The runs that sold nothing in their windows, each with its race's counts: why it has no ratio. */
export function soldNothingNotes(runs: readonly RunResult[], lang: Lang = 'en'): string[] {
  const w = BENCH_WORDS[lang];
  return runs
    .filter(soldNothing)
    .map((r) => w.soldNothingNote(r.strategy, w.topology[r.topology], r.race.ok, r.race.refused, r.race.ok + r.race.soldOut + r.race.refused));
}

export function oversoldText(c: SoldCheck): string {
  const v = verdictOf(c);
  const atLeast = c.unanswered > 0 ? '≥ ' : '';
  if (v === 'oversold') return `OVERSOLD ${atLeast}${c.oversold}`;
  if (v === 'undersold') return `undersold ${-c.oversold - c.unanswered}+`;
  return c.unanswered > 0 ? `0 (${c.unanswered} unanswered)` : '0';
}

/** "1000 / 100 / 0 / 0": the race's 200s, 409s, 503s and units left; anything undocumented named. */
export function raceText(r: RaceFigures): string {
  const cut = r.truncated ? `, cut at ${r.seconds.toFixed(0)} s` : '';
  const odd = r.unexpected > 0 ? `, ${r.unexpected} undocumented` : '';
  const unknown = r.unknownOutcome ? `, ${r.unknownOutcome} outcome unknown` : '';
  return `${r.ok} / ${r.soldOut} / ${r.refused} / ${r.left}${unknown}${odd}${cut}`;
}

export function rankText(r: Pick<RunResult, 'rank' | 'tiesWith' | 'throughput'>): string {
  if (soldNothing(r)) return '–';
  return r.tiesWith.length > 0 ? `${r.rank} (tie)` : String(r.rank);
}

/** The course's expectation, and whether this run agrees with it. */
export function courseText(r: Pick<RunResult, 'worst' | 'expected'>): string {
  return asExpected(r) ? `${r.expected} ✓` : `${r.expected} ✗ (unexpected)`;
}

export const RUN_COLUMNS = [
  'family',
  'strategy',
  'store',
  'instances',
  'race units',
  'race: 200 / 409 / 503 / left',
  'oversold',
  'goodput/s',
  '503/s',
  'p50 ms',
  'p99 ms',
  'vs mutex',
  'rank',
  'msgs/sale',
  'course',
] as const;

/** A table's header in one language, its columns named by their English keys. */
export function header<C extends string>(columns: readonly C[], words: Readonly<Record<C, string>>): string[] {
  return columns.map((c) => words[c]);
}

export const runHeader = (lang: Lang) => header(RUN_COLUMNS, BENCH_WORDS[lang].runColumns);

/** A run's cells; only the topology's label follows the language, the figures and names never do. */
export function runCells(r: RunResult, lang: Lang = 'en'): string[] {
  const t = r.throughput;
  return [
    r.family,
    r.strategy,
    r.store,
    BENCH_WORDS[lang].topology[r.topology],
    String(r.race.initial),
    raceText(r.race),
    oversoldText(r.worst),
    spreadText(t.goodput),
    int(t.refusedPerSec.median),
    int(t.p50Ms.median),
    int(t.p99Ms.median),
    efficiencyText(r, lang),
    rankText(r),
    r.messagesPerSale === undefined ? '–' : r.messagesPerSale.toFixed(1),
    courseText(r),
  ];
}

export const CEILING_COLUMNS = ['GET /noop', 'autocannon req/s', 'wrk req/s', 'autocannon ÷ wrk'] as const;
export const ceilingHeader = (lang: Lang) => header(CEILING_COLUMNS, BENCH_WORDS[lang].ceilingColumns);

/** The load generator against the reference, as a ratio of medians. */
export function ceilingRatio(c: Ceiling): number | null {
  return c.wrk && c.wrk.median > 0 ? c.autocannon.median / c.wrk.median : null;
}

export function ceilingCells(c: Ceiling, lang: Lang = 'en'): string[] {
  const ratio = ceilingRatio(c);
  return [
    BENCH_WORDS[lang].topology[c.topology],
    spreadText(c.autocannon),
    c.wrk ? spreadText(c.wrk) : 'wrk not installed',
    ratio === null ? 'n/a' : ratio.toFixed(2),
  ];
}

/** "redis-pubsub ~ zk-watch ~ redlock": results on one topology that the repeats cannot tell apart. */
export function tieGroups(runs: RunResult[], lang: Lang = 'en'): string[] {
  const seen = new Set<string>();
  const groups: string[] = [];
  for (const r of runs) {
    if (r.tiesWith.length === 0 || seen.has(`${r.topology}/${r.strategy}`)) continue;
    const members = [r.strategy, ...r.tiesWith];
    for (const m of members) seen.add(`${r.topology}/${m}`);
    groups.push(`${BENCH_WORDS[lang].topology[r.topology]}: ${members.join(' ~ ')}`);
  }
  return groups;
}

/** The sentences under a run table: its ties, and each run that sold nothing with its race's counts. */
export function runTableNotes(runs: RunResult[], lang: Lang = 'en'): string[] {
  const ties = tieGroups(runs, lang);
  return [...(ties.length > 0 ? [BENCH_WORDS[lang].ties(ties.join('; '))] : []), ...soldNothingNotes(runs, lang)];
}

/** A spread in ms as µs for a line of output: median (min–max). */
export function microseconds(s: Spread): string {
  const us = (ms: number) => Math.round(ms * 1000);
  return `${us(s.median)} µs (${us(s.min)}–${us(s.max)})`;
}

/** A difference in ms as signed µs: "+35 µs". */
export function signedMicroseconds(ms: number): string {
  const us = Math.round(ms * 1000);
  return `${us >= 0 ? '+' : '−'}${Math.abs(us)} µs`;
}
