// Every word the soak report says, in English and in Chinese: the slope table's headings and
// verdicts, the summary lines and how growth is judged. `zh` is typed by `en` (src/lang.ts's
// Translation): a key missing from either fails to compile. Resource and strategy names stay as
// the code writes them; SOAK_RULES says the run's own English texts (why growth was not judged, a
// resource's failure) in Chinese.
import type { Lang, Translation } from '../../src/lang.js';
import { byRules, type PhraseRule } from '../../report/phrase-rules.js';
import { chaosText } from '../chaos/words.js';

export const SOAK_COLUMNS = ['resource', 'first (after warm-up)', 'last', 'slope /min', 'bound /min', 'growth bound', 'verdict'] as const;
type Column = (typeof SOAK_COLUMNS)[number];

const en = {
  columns: {
    resource: 'resource',
    'first (after warm-up)': 'first (after warm-up)',
    last: 'last',
    'slope /min': 'slope /min',
    'bound /min': 'bound /min',
    'growth bound': 'growth bound',
    verdict: 'verdict',
  } satisfies Record<Column, string>,
  overTheRun: 'over the run',
  printed: 'printed',
  notJudged: 'not judged',
  grows: 'GROWS',
  flat: 'flat',
  load: (minutes: number, turnSeconds: number, requests: number, sampleSeconds: number) =>
    `${minutes} min of load at about 70 % of each strategy's goodput (measured first, ${'2 s'} with 16 clients), the strategies in turns of ${turnSeconds} s; ${requests} requests; samples every ${sampleSeconds} s.`,
  perStrategy: (list: string) => `Sold/deducted per strategy: ${list}.`,
  soldDeducted: (strategy: string, sold: number, deducted: number, oversold: number) =>
    `${strategy} ${sold}/${deducted}${oversold ? ` OVERSOLD ${oversold}` : ''}`,
  and: ', ',
  or: ' | ',
  oldRule:
    'A resource keeps growing when its least-squares slope (after the first third of the samples) is above its bound and it grew by more than the growth bound.',
  tooShort: (why: string, leastMinutes: number) =>
    `Growth: too short to judge: ${why}. A run of at least ${leastMinutes} min (--minutes ${leastMinutes}) can judge it.`,
  rule: (warmUpMinutes: string, windowSeconds: number, windows: number) =>
    `A resource keeps growing when, after the warm-up (every strategy's first turn, ${warmUpMinutes} min), the least value in each ${windowSeconds} s window (${windows} windows) rises with a least-squares slope above its bound and by more than its growth bound.`,
  verdictOk: (growth: string) => `Verdict: nothing oversold, every answer documented, ${growth}.`,
  growthTooShort: 'growth too short to judge',
  nothingGrows: 'nothing keeps growing',
  verdictFailed: (failures: string) => `Verdict: ${failures}`,
  html: {
    title: 'stocklab: soak',
    pageTitle: (stamp: string) => `stocklab soak ${stamp}`,
    samplesNotRead: (errors: string) => `Samples not read: ${errors}`,
  },
  docs: {
    from: (file: string) => `From \`${file}\`:`,
  },
} as const;

export type SoakWords = Translation<typeof en>;

const zh: SoakWords = {
  columns: {
    resource: '资源',
    'first (after warm-up)': '起点（预热之后）',
    last: '终点',
    'slope /min': '斜率 /分钟',
    'bound /min': '上限 /分钟',
    'growth bound': '增长上限',
    verdict: '结论',
  },
  overTheRun: '整次运行',
  printed: '只列出',
  notJudged: '未判定',
  grows: '一直增长',
  flat: '平稳',
  load: (minutes, turnSeconds, requests, sampleSeconds) =>
    `加压 ${minutes} 分钟，负载约为每个方案有效吞吐的 70 %（先用 16 个客户端测 2 秒得出），各方案轮流上场，每轮 ${turnSeconds} 秒；共 ${requests} 个请求；每 ${sampleSeconds} 秒采样一次。`,
  perStrategy: (list) => `各方案的售出/实际扣减：${list}。`,
  soldDeducted: (strategy, sold, deducted, oversold) => `${strategy} ${sold}/${deducted}${oversold ? ` 超卖 ${oversold}` : ''}`,
  and: '，',
  or: ' | ',
  oldRule: '某项资源的最小二乘斜率（去掉前三分之一的采样之后）高于上限，并且涨幅超过增长上限，才算一直增长。',
  tooShort: (why, leastMinutes) => `增长：运行太短，无法判断：${why}。至少 ${leastMinutes} 分钟的运行（--minutes ${leastMinutes}）才能判断。`,
  rule: (warmUpMinutes, windowSeconds, windows) =>
    `预热（每个方案的第一轮，${warmUpMinutes} 分钟）之后，取每个 ${windowSeconds} 秒窗口（共 ${windows} 个）里的最小值；它们的最小二乘斜率高于上限、并且涨幅超过增长上限，这项资源才算一直增长。`,
  verdictOk: (growth) => `结论：没有超卖，每个响应都在文档之中，${growth}。`,
  growthTooShort: '运行太短，无法判断增长',
  nothingGrows: '没有一直增长的资源',
  verdictFailed: (failures) => `结论：${failures}`,
  html: {
    title: 'stocklab：浸泡测试',
    pageTitle: (stamp) => `stocklab 浸泡测试 ${stamp}`,
    samplesNotRead: (errors) => `没有读到的采样：${errors}`,
  },
  docs: {
    from: (file) => `来自 \`${file}\`：`,
  },
};

export const SOAK_WORDS: Readonly<Record<Lang, SoakWords>> = { en, zh };

/** faults/soak/verdict.ts's reasons growth was not judged, and run.ts's failure of a growing resource. */
const SOAK_RULES: readonly PhraseRule[] = [
  [/^not every strategy in the plan had a turn, so the run never left its warm-up$/, '计划里的方案没有全部轮到一次，所以这次运行一直没有走出预热'],
  [
    /^([\d.]+) min after the warm-up \(every strategy's first turn, ([\d.]+) min\); judging needs ([\d.]+) min$/,
    '预热（每个方案的第一轮，$2 分钟）之后只有 $1 分钟；判断需要 $3 分钟',
  ],
  [
    /^(.+) keeps growing: (-?[\d.]+)\/min \(bound ([\d.]+)\/min\), floors (-?[\d.]+) → (-?[\d.]+)$/,
    '$1 一直增长：每分钟 $2（上限每分钟 $3），底部从 $4 涨到 $5',
  ],
];

/** A soak's own text in a language: its growth rules first, then the chaos checker's (its failures are the checker's). */
export function soakText(text: string, lang: Lang): string {
  if (lang === 'en') return text;
  const said = byRules(text, SOAK_RULES);
  return said !== text ? said : chaosText(text, lang);
}
