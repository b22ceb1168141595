// The comparison as markdown: what stdout shows and what the .md file holds (in --lang's language).
import type { Lang } from '../../src/lang.js';
import { ceilingCells, ceilingHeader, runCells, runHeader, runTableNotes } from './format.js';
import { MIN_RACE_UNITS, SELL_OUT_AT, SOLD_OUT_MAX_SECONDS } from './run-options.js';
import type { BenchReport } from './report.js';
import { BENCH_WORDS, runMachine } from './words.js';
import { markdownTable } from '../table.js';

/** One paragraph on how the figures were taken, shared by the markdown and the HTML report. */
export function methodText(report: BenchReport, lang: Lang = 'en'): string {
  const o = report.options;
  const w = BENCH_WORDS[lang];
  const extra = o.requests - o.initial;
  return w.method({
    rounds: o.rounds,
    warmup: o.warmupSeconds,
    window: o.windowSeconds,
    connections: o.connections,
    workMs: o.workMs,
    lease: `${o.ttlMs !== undefined ? `, ttlMs ${o.ttlMs}` : ''}${o.waitMs !== undefined ? `, waitMs ${o.waitMs}` : ''}`,
    race: o.soldOutWindows
      ? w.raceSoldOut(SELL_OUT_AT, MIN_RACE_UNITS, SOLD_OUT_MAX_SECONDS)
      : o.raceSeconds === undefined
        ? w.raceFixed(o.requests, o.initial)
        : w.raceSized(o.raceSeconds, MIN_RACE_UNITS, o.initial, extra),
    ...(o.courseStrategies.length > 0 && { course: { strategies: o.courseStrategies, requests: o.courseRequests, initial: o.courseInitial } }),
    ...runMachine(report),
  });
}

/** How to read the run table, one line each. */
export const definitions = (lang: Lang): readonly string[] => BENCH_WORDS[lang].definitions;

/** The run table, how to read it, and its ties. */
export function runsTable(report: BenchReport, lang: Lang = 'en'): string {
  return [
    markdownTable(
      runHeader(lang),
      report.runs.map((r) => runCells(r, lang)),
    ),
    '',
    ...definitions(lang).map((d) => `- ${d}`),
    ...runTableNotes(report.runs, lang).flatMap((n) => ['', n]),
  ].join('\n');
}

export function renderMarkdown(report: BenchReport, lang: Lang = 'en'): string {
  const parts = [
    `## ${BENCH_WORDS[lang].heading(report.stamp)}`,
    '',
    methodText(report, lang),
    '',
    markdownTable(
      ceilingHeader(lang),
      report.ceilings.map((c) => ceilingCells(c, lang)),
    ),
    '',
    runsTable(report, lang),
    ...report.notes.map((n) => `\n${n}`),
  ];
  return parts.join('\n') + '\n';
}
