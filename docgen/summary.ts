// The README's summary: one row per family of the catalog, read from one bench run (and, when
// given, one fault run): the strategy to use, the ones that oversell, the one to avoid, and the
// faults that break them.
import type { FaultRow } from '../faults/row.js';
import { efficiencyText, int } from '../report/bench/format.js';
import { verdictOf, type BenchReport, type RunResult, type Topology } from '../report/bench/report.js';
import { BENCH_WORDS } from '../report/bench/words.js';
import type { Lang } from '../src/lang.js';
import { LINE_SUFFIX } from '../src/strategies/lined.js';

export interface FamilySummary {
  family: string;
  use: string;
  oversells: string;
  avoid: string;
  faults: string;
}

const code = (name: string) => `\`${name}\``;

/** "`sql-update` 2.58× / 2.25×": a strategy with its ratio to mutex on one instance and on three. */
function withRatios(runs: RunResult[], name: string, lang: Lang): string {
  const of = (t: Topology) =>
    efficiencyText(
      runs.find((r) => r.strategy === name && r.topology === t),
      lang,
    );
  return `${code(name)} ${of('one')} / ${of('three')}`;
}

const goodputOn3 = (runs: RunResult[], name: string) => runs.find((r) => r.strategy === name && r.topology === 'three')?.throughput.goodput.median ?? 0;

/** What a fault run shows breaking these strategies: oversold, deducted twice, or never recovered. */
export function faultsBreaking(rows: readonly FaultRow[], strategies: readonly string[], lang: Lang = 'en'): string {
  const w = BENCH_WORDS[lang].docs;
  const mine = rows.filter((x) => strategies.includes(x.strategy));
  if (mine.length === 0) return w.notInFaultLab;
  // A variant that never recovers where another variant of the same scenario does (RedLock's split
  // vote with its jitter off, beside the lock as it is) is a contrast the fault table shows, not a break.
  const recovers = (r: FaultRow) =>
    mine.some((o) => o.scenario === r.scenario && o.strategy === r.strategy && o.recoverMs !== null && o.recoverMs !== undefined);
  // One entry per scenario, however many outcomes its variants show: the fault table names each.
  const broken = new Map<string, { oversold: number[]; twice: boolean; never: boolean; names: Set<string> }>();
  for (const r of mine) {
    const neverRecovers = r.recoverMs === null && r.recoverBoundMs !== undefined && !recovers(r);
    const twice = (r.doubleDeductions ?? 0) > 0;
    if (r.oversold <= 0 && !twice && !neverRecovers) continue;
    const entry = broken.get(r.scenario) ?? { oversold: [], twice: false, never: false, names: new Set<string>() };
    broken.set(r.scenario, entry);
    if (r.oversold > 0) entry.oversold.push(r.oversold);
    else if (twice) entry.twice = true;
    else entry.never = true;
    entry.names.add(r.strategy);
  }
  if (broken.size === 0) return w.noneMeasured;
  const span = (ns: number[]) => (Math.min(...ns) === Math.max(...ns) ? `${ns[0]}` : `${Math.min(...ns)}–${Math.max(...ns)}`);
  return [...broken]
    .map(([scenario, e]) => {
      const outcomes = [
        ...(e.oversold.length > 0 ? [w.oversoldN(span(e.oversold))] : []),
        ...(e.twice ? [w.deductedTwice] : []),
        ...(e.never ? [w.neverRecovers] : []),
      ];
      // a list of names would drown the fault: past one, a count (the fault table names them)
      const who = e.names.size > 1 ? w.locks(e.names.size) : [...e.names].map(code).join(w.and);
      return w.outcomeBy(w.scenarioOutcome(scenario, outcomes.join(w.and)), who);
    })
    .join(w.then);
}

/**
 * The strategies a fault breaks (oversold, deducted twice, never recovered) where another of `names`
 * stays whole under the same scenario and variant: a flawed step (etcd-lock-no-recheck beside
 * etcd-lock, the basic lock table beside the one with a lease) is never the one to use, however fast.
 */
export function brokenWhereOthersHold(rows: readonly FaultRow[], names: readonly string[]): Set<string> {
  const mine = rows.filter((r) => names.includes(r.strategy));
  const broken = (r: FaultRow) => r.oversold > 0 || (r.doubleDeductions ?? 0) > 0 || (r.recoverMs === null && r.recoverBoundMs !== undefined);
  return new Set(
    mine
      .filter((r) => broken(r) && mine.some((o) => o.strategy !== r.strategy && o.scenario === r.scenario && o.variant === r.variant && !broken(o)))
      .map((r) => r.strategy),
  );
}

export function familySummaries(report: BenchReport, faults?: readonly FaultRow[], lang: Lang = 'en'): FamilySummary[] {
  const w = BENCH_WORDS[lang].docs;
  const families = [...new Set(report.catalog.map((s) => s.family))];
  return families.map((family) => {
    const entries = report.catalog.filter((s) => s.family === family);
    const names = entries.map((s) => s.name);
    const runs = report.runs.filter((r) => names.includes(r.strategy));
    const measuredOversold = names.filter((n) => runs.some((r) => r.strategy === n && verdictOf(r.worst) === 'oversold'));
    const exact = names.filter((n) => !measuredOversold.includes(n) && runs.some((r) => r.strategy === n));
    const byGoodput = [...exact].sort((a, b) => goodputOn3(runs, b) - goodputOn3(runs, a));
    const outdone = faults ? brokenWhereOthersHold(faults, names) : new Set<string>();
    const best = byGoodput.find((n) => !outdone.has(n)) ?? byGoodput[0];
    const worst = byGoodput.length > 1 ? byGoodput[byGoodput.length - 1] : undefined;
    const overLease = entries.filter((s) => s.expected.workOverTtl === 'oversells' && !measuredOversold.includes(s.name)).map((s) => s.name);
    const oversells = [
      ...measuredOversold.map((n) => {
        const worstRun = runs.filter((r) => r.strategy === n).reduce((a, b) => (b.worst.oversold > a.worst.oversold ? b : a));
        return w.oversoldUnits(code(n), int(worstRun.worst.oversold));
      }),
      ...(overLease.length > 0 ? [w.overLease(overLease.map(code).join(w.and))] : []),
    ];
    return {
      family,
      use: best ? withRatios(runs, best, lang) : '–',
      oversells: oversells.length > 0 ? oversells.join(w.then) : w.none,
      avoid: worst ? withRatios(runs, worst, lang) : '–',
      faults: faults ? faultsBreaking(faults, names, lang) : w.notRun,
    };
  });
}

/** Each course lock run per request beside its `+line` row (both in the run), with their ratios to mutex. */
export function linedPairs(report: BenchReport, lang: Lang): string | undefined {
  const w = BENCH_WORDS[lang].docs;
  const ran = new Set(report.runs.map((r) => r.strategy));
  const pairs = report.catalog
    .filter((s) => s.name.endsWith(LINE_SUFFIX) && ran.has(s.name) && ran.has(s.name.slice(0, -LINE_SUFFIX.length)))
    .map((s) => w.linedPair(withRatios(report.runs, s.name.slice(0, -LINE_SUFFIX.length), lang), withRatios(report.runs, s.name, lang)));
  return pairs.length > 0 ? pairs.join(w.then) : undefined;
}
