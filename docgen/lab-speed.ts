// docs/bench.md's "before and after" (issue 47): two lab runs of the same rows side by side, the
// races apart against the sold-out windows, with where each run's time went and each row's
// verdict, race and goodput, so a reader can check that nothing was lost for the time saved.
import type { Lang } from '../src/lang.js';
import { clockText, type PhaseTime } from '../src/cli/plan-clock.js';
import { oversoldText, raceText, spreadText } from '../report/bench/format.js';
import { verdictOf, type BenchReport, type RunResult } from '../report/bench/report.js';
import { markdownTable } from '../report/table.js';
import { BENCH_WORDS } from '../report/bench/words.js';

export interface LabRun {
  report: BenchReport;
  file: string;
}

/** How a run measured: its windows, and whether each strategy's last window was its race. */
const howEn = (r: BenchReport) =>
  `windows of ${r.options.warmupSeconds.toFixed(1)} s + ${r.options.windowSeconds.toFixed(1)} s, ${r.options.soldOutWindows ? "each strategy's last window sold out as its race" : 'then a race apart for each strategy'}`;
const howZh = (r: BenchReport) =>
  `窗口为预热 ${r.options.warmupSeconds.toFixed(1)} 秒 + 计量 ${r.options.windowSeconds.toFixed(1)} 秒，${r.options.soldOutWindows ? '每个方案的最后一个窗口卖完，就是它的抢购' : '之后每个方案单独抢购一次'}`;

const WORDS = {
  en: {
    lead: (before: LabRun, after: LabRun, b: string, a: string) =>
      `Two runs of \`npm run lab -- --stop\` on this machine: before (\`${before.file}\`, ${b}), ${howEn(before.report)}; after, as the lab now runs (\`${after.file}\`, ${a}), ${howEn(after.report)}.`,
    phasesHeader: ['phase', 'before', 'after'],
    total: 'in all',
    drain: "a window's drain, median / max",
    rowsHeader: [
      'strategy',
      'instances',
      'oversold before',
      'oversold after',
      'race before: units, 200 / 409 / 503 / left',
      'race after',
      'goodput/s before',
      'goodput/s after',
    ],
    soldOut: 'sold-out window',
    apart: 'race apart',
    missing: 'not in this run',
    verdicts: (same: number, all: number, oversold: string) =>
      `Verdicts: ${same} of ${all} rows have the same verdict in both runs. How much a row that oversells oversells varies from run to run: ${oversold}.`,
  },
  zh: {
    lead: (before: LabRun, after: LabRun, b: string, a: string) =>
      `在这台机器上的两次 \`npm run lab -- --stop\`：之前（\`${before.file}\`，${b}），${howZh(before.report)}；之后是实验现在的跑法（\`${after.file}\`，${a}），${howZh(after.report)}。`,
    phasesHeader: ['阶段', '之前', '之后'],
    total: '合计',
    drain: '一个窗口的收尾，中位数 / 最大',
    rowsHeader: ['方案', '实例', '之前超卖', '之后超卖', '之前的抢购：件数，200 / 409 / 503 / 剩余', '之后的抢购', '之前有效吞吐/秒', '之后有效吞吐/秒'],
    soldOut: '卖完的窗口',
    apart: '单独抢购',
    missing: '本次没有',
    verdicts: (same: number, all: number, oversold: string) =>
      `结论：${all} 行中有 ${same} 行两次的结论相同。超卖的行超卖多少，每次运行都不一样：${oversold}。`,
  },
} as const;

const PHASE_ORDER = ['cluster', 'install', 'warm-up', 'ceiling', 'windows', 'races', 'messages', 'other'];

function phaseSeconds(phases: readonly PhaseTime[] | undefined, phase: string): number | undefined {
  return phases?.find((p) => p.phase === phase)?.seconds;
}

const totalOf = (r: BenchReport): number => r.phases?.reduce((n, p) => n + p.seconds, 0) ?? r.seconds;

/** The requests in flight after a window, served (or, since the waits end with the span, refused): median / max ms. */
function drainCell(r: BenchReport): string {
  const d = r.windowTime?.parts.drain;
  return d ? `${d.median} / ${d.max} ms` : '–';
}

/** "units: a / b / c / d (how)". */
function raceCell(r: RunResult, lang: Lang): string {
  return `${r.race.initial}: ${raceText(r.race)} (${r.race.window ? WORDS[lang].soldOut : WORDS[lang].apart})`;
}

export function labSpeedBlock(before: LabRun, after: LabRun, lang: Lang): string {
  const w = WORDS[lang];
  const topology = BENCH_WORDS[lang].topology;
  const phases = PHASE_ORDER.filter((p) => phaseSeconds(before.report.phases, p) !== undefined || phaseSeconds(after.report.phases, p) !== undefined);
  const cell = (r: BenchReport, p: string) => {
    const s = phaseSeconds(r.phases, p);
    return s === undefined ? '–' : clockText(s);
  };
  const phaseRows = [
    ...phases.map((p) => [p, cell(before.report, p), cell(after.report, p)]),
    [w.total, clockText(totalOf(before.report)), clockText(totalOf(after.report))],
    [w.drain, drainCell(before.report), drainCell(after.report)],
  ];
  const key = (r: RunResult) => `${r.strategy}/${r.topology}`;
  const afterRuns = new Map(after.report.runs.map((r) => [key(r), r]));
  let same = 0;
  const oversold: string[] = [];
  const rows = before.report.runs.map((b) => {
    const a = afterRuns.get(key(b));
    if (a && verdictOf(a.worst) === verdictOf(b.worst)) same++;
    if (a && (verdictOf(a.worst) === 'oversold' || verdictOf(b.worst) === 'oversold'))
      oversold.push(`${b.strategy} (${topology[b.topology]}) ${b.worst.oversold} → ${a.worst.oversold}`);
    return [
      b.strategy,
      topology[b.topology],
      oversoldText(b.worst),
      a ? oversoldText(a.worst) : w.missing,
      raceCell(b, lang),
      a ? raceCell(a, lang) : w.missing,
      spreadText(b.throughput.goodput),
      a ? spreadText(a.throughput.goodput) : w.missing,
    ];
  });
  return [
    w.lead(before, after, clockText(totalOf(before.report)), clockText(totalOf(after.report))),
    '',
    markdownTable(w.phasesHeader, phaseRows),
    '',
    markdownTable(w.rowsHeader, rows),
    '',
    w.verdicts(same, before.report.runs.length, oversold.join(lang === 'zh' ? '；' : '; ')),
  ].join('\n');
}
