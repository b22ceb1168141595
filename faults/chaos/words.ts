// Every word the chaos report says, in English and in Chinese: the table's headings, the summary
// lines, the timeline's labels, the docs' run heading. `zh` is typed by `en` (src/lang.ts's
// Translation): a key missing from either fails to compile. Strategy, server and fault-kind names,
// answers and request ids stay as the code writes them. CHAOS_RULES says the run's own English
// texts (a fault's note, a checker's problem, a partition) in Chinese, clause by clause.
import type { Lang, Translation } from '../../src/lang.js';
import { byRules, type PhraseRule } from '../../report/phrase-rules.js';

export const CHAOS_COLUMNS = [
  'strategy',
  'store',
  'fenced',
  'requests',
  'sold',
  'deducted',
  'oversold',
  'unknown',
  'refused',
  'recover ms',
  'verdict',
] as const;
type Column = (typeof CHAOS_COLUMNS)[number];

/** The timeline's legend: the fault kinds' first words, then the answers' series. */
export const LEGEND_KEYS = ['freeze', 'kill', 'stop', 'pause', 'partition', 'sold', 'unknown', 'refused'] as const;
type LegendKey = (typeof LEGEND_KEYS)[number];

const en = {
  columns: {
    strategy: 'strategy',
    store: 'store',
    fenced: 'fenced',
    requests: 'requests',
    sold: 'sold',
    deducted: 'deducted',
    oversold: 'oversold',
    unknown: 'unknown',
    refused: 'refused',
    'recover ms': 'recover ms',
    verdict: 'verdict',
  } satisfies Record<Column, string>,
  yes: 'yes',
  no: 'no',
  never: (boundMs: number) => `never (> ${boundMs})`,
  exact: 'exact',
  notJudged: (why: string) => `not judged: ${why}`,
  reported: (by: string, problems: string) => `reported (${by}): ${problems}`,
  failed: (problems: string) => `FAILED: ${problems}`,
  /** between a verdict's problems, a line's items, the failures */
  then: '; ',
  and: ', ',
  or: ' | ',
  topology: (t: string) => `, ${t} topology`,
  load: (minutes: string, seed: number, topology: string, faults: number, kinds: string, requests: number, skipped: number) =>
    `${minutes} min of load, seed ${seed}${topology}; ${faults} faults injected (${kinds}); ${requests} requests checked${skipped ? `, ${skipped} sends skipped at the in-flight cap` : ''}.`,
  kind: (kind: string, n: number) => `${kind} ${n}`,
  rate: (rate: number, maxInFlight: number) =>
    `Load: ${rate} requests/s through nginx (at most ${maxInFlight} in flight), one strategy at a time, each turn's requests over before the next turn; a fixed modest rate, well under each strategy's goodput.`,
  ledger: (stores: string) => `Ledger: ${stores}.`,
  ledgerStore: (store: string, deducted: number, recorded: number) => `${store} deducted ${deducted}, GET /sales recorded ${recorded}`,
  recovery: (boundMs: number, leftovers: string) =>
    `Recovery: each strategy's first 200 after the last heal (or after the previous strategy's), bound ${boundMs} ms. Left held after every heal: ${leftovers}.`,
  nothing: 'nothing',
  none: 'none',
  notJudgedLine: (names: string) => `Not judged (too little seen for "exact" to mean anything): ${names}.`,
  crashes: (list: string) => `Servers that exited with no fault on them: ${list}.`,
  crashAt: (target: string, seconds: string) => `${target} at ${seconds} s`,
  verdictOk: 'Verdict: every check holds.',
  verdictFailed: (n: number, failures: string) => `Verdict: ${n} failure(s): ${failures}`,
  rerun: (command: string) => `Rerun: ${command}`,
  html: {
    title: 'stocklab: chaos (a random nemesis under a steady load)',
    pageTitle: (stamp: string) => `stocklab chaos ${stamp}`,
    perStrategy: 'Per strategy',
    faults: 'Faults',
    timeline: (seed: number, lastHealSeconds: string) => `Faults and answers over time (seed ${seed}); the last heal at ${lastHealSeconds} s`,
    legend: {
      freeze: 'freeze',
      kill: 'kill',
      stop: 'stop',
      pause: 'pause',
      partition: 'partition',
      sold: 'sold',
      unknown: 'unknown',
      refused: 'refused',
    } satisfies Record<LegendKey, string>,
    linksHealed: (seconds: string) => `links healed at ${seconds} s`,
  },
  docs: {
    run: (topology: string, seed: number, minutes: string, file: string) => `### ${topology} topology, seed ${seed}, ${minutes} min (\`${file}\`)`,
  },
} as const;

export type ChaosWords = Translation<typeof en>;

const zh: ChaosWords = {
  columns: {
    strategy: '方案',
    store: '存储',
    fenced: '防护令牌',
    requests: '请求',
    sold: '售出',
    deducted: '实际扣减',
    oversold: '超卖',
    unknown: '结果未知',
    refused: '被拒绝',
    'recover ms': '恢复毫秒',
    verdict: '结论',
  },
  yes: '有',
  no: '无',
  never: (boundMs) => `未恢复（> ${boundMs}）`,
  exact: '准确',
  notJudged: (why) => `未判定：${why}`,
  reported: (by, problems) => `如实报告（${by}）：${problems}`,
  failed: (problems) => `失败：${problems}`,
  then: '；',
  and: '、',
  or: ' | ',
  topology: (t) => `，${t} 拓扑`,
  load: (minutes, seed, topology, faults, kinds, requests, skipped) =>
    `加压 ${minutes} 分钟，种子 ${seed}${topology}；注入 ${faults} 个故障（${kinds}）；检查了 ${requests} 个请求${skipped ? `，另有 ${skipped} 次发送因在途请求已达上限而跳过` : ''}。`,
  kind: (kind, n) => `${kind} ${n} 次`,
  rate: (rate, maxInFlight) =>
    `负载：每秒 ${rate} 个请求经 nginx 发出（最多 ${maxInFlight} 个在途），一次一个方案，上一轮的请求全部结束后才开始下一轮；速率固定而温和，远低于每个方案的有效吞吐。`,
  ledger: (stores) => `账目：${stores}。`,
  ledgerStore: (store, deducted, recorded) => `${store} 实际扣减 ${deducted} 件，GET /sales 记录了 ${recorded} 单`,
  recovery: (boundMs, leftovers) =>
    `恢复：每个方案在最后一次故障恢复之后（或在前一个方案恢复之后）的第一个 200，上限 ${boundMs} 毫秒。所有故障恢复之后仍被占着的锁：${leftovers}。`,
  nothing: '没有',
  none: '无',
  notJudgedLine: (names) => `未判定（见到的请求或故障太少，说“准确”毫无意义）：${names}。`,
  crashes: (list) => `没有故障却退出的服务器：${list}。`,
  crashAt: (target, seconds) => `${target}（${seconds} 秒）`,
  verdictOk: '结论：每项检查都成立。',
  verdictFailed: (n, failures) => `结论：${n} 项失败：${failures}`,
  rerun: (command) => `重放同一份日程：${command}`,
  html: {
    title: 'stocklab：混沌测试（稳定负载下的随机故障）',
    pageTitle: (stamp) => `stocklab 混沌测试 ${stamp}`,
    perStrategy: '各方案',
    faults: '故障',
    timeline: (seed, lastHealSeconds) => `故障与响应随时间的变化（种子 ${seed}）；最后一次恢复在 ${lastHealSeconds} 秒`,
    legend: { freeze: '冻结', kill: '杀死', stop: '停机', pause: '冻结持锁者', partition: '网络分区', sold: '售出', unknown: '结果未知', refused: '被拒绝' },
    linksHealed: (seconds) => `链路在 ${seconds} 秒恢复`,
  },
  docs: {
    run: (topology, seed, minutes, file) => `### ${topology} 拓扑，种子 ${seed}，${minutes} 分钟（\`${file}\`）`,
  },
};

export const CHAOS_WORDS: Readonly<Record<Lang, ChaosWords>> = { en, zh };

const ID = '[\\w.-]+';
// a strategy's name, its +line form's too (zk-reentrant+line)
const NAME = '[a-z][\\w-]*(?:\\+line)?';

/** The run's own texts (faults/chaos/nemesis.ts's notes, checker.ts's problems and failures, src/net/grudge.ts's partitions). */
export const CHAOS_RULES: readonly PhraseRule[] = [
  // a fault's note
  [/^no lock in turn \(between turns\): froze the instance instead$/, '两轮之间没有可冻结的持锁者：改为冻结实例'],
  [new RegExp(`^no lock in turn \\((${NAME})\\): froze the instance instead$`), '这一轮（$1）没有锁：改为冻结实例'],
  [new RegExp(`^(${NAME}): holder stopped holding the lock$`), '$1：持锁者在持锁时被冻结'],
  [new RegExp(`^(${NAME}): the holder answered before stopping$`), '$1：持锁者在被冻结之前就已作答'],
  [new RegExp(`^(${NAME}): holder not stopped within (\\d+) ms$`), '$1：持锁者没有在 $2 毫秒内被冻结'],
  [new RegExp(`^(${NAME}) promoted after (\\d+) ms$`), '$1 在 $2 毫秒后升为主节点'],
  [new RegExp(`^(${NAME}) not promoted within (\\d+) ms$`), '$1 没有在 $2 毫秒内升为主节点'],
  [new RegExp(`^on (${NAME})$`), '落在 $1 上'],
  [/^failed over$/, '发生了主从切换'],
  [/^a replica in sync (\d+) ms after the thaw$/, '解冻后 $1 毫秒以从节点身份完成同步'],
  [/^a replica in sync (\d+) ms after (.+)$/, '$2 之后 $1 毫秒以从节点身份完成同步'],
  [/^not a replica in sync within (\d+) ms$/, '$1 毫秒内没有以从节点身份完成同步'],
  [/^Sentinel not settled within (\d+) ms of the thaw$/, 'Sentinel 在解冻后 $1 毫秒内没有稳定下来'],
  [/^failed: (.+)$/, '注入失败：$1'],
  // a partition: who drops whose packets
  [/^no partition$/, '没有分区'],
  [new RegExp(`^(${NAME}) drops (${NAME}(?:,${NAME})*)$`), '$1 丢弃来自 $2 的包'],
  // a checker's problem (after a strategy's name and ": " in a failure)
  [/^oversold (\d+): (\d+) sold, (\d+) deducted$/, '超卖 $1：售出 $2，实际扣减 $3'],
  [/^oversold (\d+): (\d+) sold, (\d+) deducted \(turn by turn: (.+)\)$/, '超卖 $1：售出 $2，实际扣减 $3（逐轮：$4）'],
  [/^(\d+) unit\(s\) deducted that no answer or sale record accounts for$/, '扣减了 $1 件，却没有任何响应或售出记录对得上'],
  [/^deducted more than once: (.+)$/, '被扣减了不止一次：$1'],
  [/^200 not counted once by GET \/sales: (.+)$/, '有 200 没有被 GET /sales 恰好记录一次：$1'],
  [/^sold with an answer that allows no sale: (.+)$/, '响应不允许卖出，背后却有卖出：$1'],
  [/^undocumented answers: (.+)$/, '文档之外的响应：$1'],
  // the same without their request ids (the docs' brief tables)
  [/^deducted more than once$/, '被扣减了不止一次'],
  [/^200 not counted once by GET \/sales$/, '有 200 没有被 GET /sales 恰好记录一次'],
  [/^sold with an answer that allows no sale$/, '响应不允许卖出，背后却有卖出'],
  [/^undocumented answers$/, '文档之外的响应'],
  [/^no 200 within (\d+) ms of the last heal$/, '最后一次恢复后 $1 毫秒内没有 200'],
  [/^sales recorded for ids never sent: (.+)$/, '从未发出的请求号有售出记录：$1'],
  [/^left held after every heal: (.+)$/, '所有故障恢复后仍被占着：$1'],
  [new RegExp(`^(${NAME}) exited at ([\\d.]+) s with no fault on it$`), '$1 在 $2 秒时退出，当时没有故障'],
  [/^the instances logged (\d+) answers 500 \(each a bug, whoever asked\)$/, '实例日志里记下了 $1 个 500 响应（不管请求是谁发的，每一个都是缺陷）'],
  [/^the first: (.+)$/s, '第一条：$1'],
  // why a strategy was not judged, and what allowed it to oversell
  [/^(\d+) requests and (\d+) faults in its turns$/, '它的几轮里只有 $1 个请求、$2 个故障'],
  [/^judging needs (\d+) and (\d+)$/, '判定至少需要 $1 个请求和 $2 个故障'],
  [/^catalog: holderPause oversells$/, '方案目录：持锁者停顿时会超卖'],
  [/^a Redis failover loses acknowledged writes \(§2\.9\)$/, 'Redis 主从切换会丢掉已确认的写入（§2.9）'],
  [new RegExp(`^(${ID}(?:, ${ID})*) … \\((\\d+)\\)$`), '$1 …（共 $2 个）'],
];

/** One of the run's texts in a language: in Chinese clause by clause, a "name: …" clause's rest too. */
export function chaosText(text: string, lang: Lang): string {
  if (lang === 'en') return text;
  const clause = (c: string): string => {
    const said = byRules(c, CHAOS_RULES);
    if (said !== c) return said;
    const named = new RegExp(`^(${NAME}): (.+)$`).exec(c);
    return named ? `${named[1]}：${clause(named[2] as string)}` : c;
  };
  return text.split('; ').map(clause).join('；');
}
