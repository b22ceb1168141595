// Every word the fault lab's reports say, in English and in Chinese: the table's headings, how to
// read it, the method line, the catalog check, the HTML report's headings and the closing lines.
// `zh` is typed by `en` (src/lang.ts's Translation): a key missing from either fails to compile.
// Scenario, strategy and variant names, answers and each scenario's description stay as in code.
import type { Lang, Translation } from '../../src/lang.js';
import type { COLUMNS } from './cells.js';
import type { RunMachine } from '../../report/bench/words.js';

type Column = (typeof COLUMNS)[number];

/** What the method line says about a run (markdown.ts computes it from the report). */
export interface FaultMethodParts extends RunMachine {
  scenarios: string;
  strategies?: string;
  initial: number;
  sell: number;
  inFlight: number;
}

const en = {
  columns: {
    scenario: 'scenario',
    strategy: 'strategy',
    variant: 'variant',
    store: 'store',
    sold: 'sold',
    deducted: 'deducted',
    oversold: 'oversold',
    'double deductions': 'double deductions',
    'outcome unknown': 'outcome unknown',
    '503s': '503s',
    'recover ms': 'recover ms',
    expected: 'expected',
  } satisfies Record<Column, string>,
  definitions: [
    'sold = 200 answers + outcome-unknown requests (502/504 from nginx, 503 outcome_unknown from the service, or no answer) whose request id GET /sales shows committed.',
    'deducted = units that really left the store, read from MySQL or Redis directly. oversold = sold − deducted (negative: units taken that no customer was told about).',
    'double deductions = request ids whose deduction committed more than once (GET /sales). Every request carries its own X-Request-Id.',
    '503s = refusals by error (nothing sold), then any undocumented answer (a bug). recover ms = what the scenario times (see its description); never = not within its bound.',
  ],
  method: (m: FaultMethodParts) =>
    `Scenarios: ${m.scenarios}.${m.strategies ? ` Strategies: ${m.strategies} only.` : ''} ${m.initial} units per case, N = ${m.sell} sold while a holder is frozen, ${m.inFlight} clients sending when a store stops. ` +
    `${m.nproc} CPUs (${m.cpu}), Node ${m.node}; ${m.date}; ${m.minutes} min.`,
  catalogAgrees: (n: number) => `GET /strategies declares fault outcomes (expected.faults) for ${n} strategies; every row it declares something about agrees.`,
  catalogDisagrees: (n: number) => `GET /strategies declares fault outcomes for ${n} strategies, and some the lab did not measure:`,
  heading: (stamp: string) => `stocklab faults ${stamp}`,
  measured: (command: string, file: string, method: string, asExpected: number, cases: number) =>
    `Measured with \`${command}\` (\`${file}\`): ${method} ${asExpected} of ${cases} cases as expected.`,
  scenarios: 'Scenarios',
  notAsExpected: (n: number) => `Not as expected (${n})`,
  noneNotAsExpected: 'None.',
  details: 'Details',
  failed: 'FAILED',
  answers: 'answers',
  allAsExpected: (minutes: string) => `\nfaults: every case as expected (${minutes} min)`,
  someNot: (cases: number, mismatches: number) => `\nfaults: ${cases} case(s) NOT as expected, ${mismatches} catalog mismatch(es) (see the report)`,
  html: {
    title: 'stocklab: the fault lab',
    holderFrozen: 'Holder frozen past its lease',
    pauseChart: (sell: number) => `Oversold units when a frozen holder writes after its lease ended (N = ${sell} sold meanwhile)`,
    unitsOversold: 'units oversold',
    unfenced: 'unfenced',
    fenced: 'fenced',
    allCases: 'All cases',
    catalog: "The catalog's declarations",
    descriptionsNote: 'Each scenario, as its module describes it:',
  },
} as const;

export type FaultWords = Translation<typeof en>;

const zh: FaultWords = {
  columns: {
    scenario: '场景',
    strategy: '方案',
    variant: '变体',
    store: '存储',
    sold: '售出',
    deducted: '实际扣减',
    oversold: '超卖',
    'double deductions': '重复扣减',
    'outcome unknown': '结果未知',
    '503s': '503',
    'recover ms': '恢复毫秒',
    expected: '预期',
  },
  definitions: [
    '售出 = 200 响应数 + 结果未知的请求（nginx 的 502/504、服务的 503 outcome_unknown，或没有响应）中，GET /sales 显示已提交的那些。',
    '实际扣减 = 真正离开存储的件数，直接从 MySQL 或 Redis 读出。超卖 = 售出 − 实际扣减（负数：扣掉了库存，却没有告诉任何顾客卖出了）。',
    '重复扣减 = 扣减被提交了不止一次的请求 id（GET /sales）。每个请求都带着自己的 X-Request-Id。',
    '503 = 按错误分类的拒绝（没有卖出），其后是任何未记录在文档中的响应（即 bug）。恢复毫秒 = 场景计时的那段时间（见场景说明）；never = 在上限内没有恢复。',
  ],
  method: (m) =>
    `场景：${m.scenarios}。${m.strategies ? `只测方案：${m.strategies}。` : ''}每个用例 ${m.initial} 件库存，持锁者被冻结期间卖出 N = ${m.sell} 件，存储停机时有 ${m.inFlight} 个客户端在发请求。` +
    `${m.nproc} 个 CPU（${m.cpu}），Node ${m.node}；${m.date}；用时 ${m.minutes} 分钟。`,
  catalogAgrees: (n) => `GET /strategies 为 ${n} 个方案声明了故障结果（expected.faults）；凡是它有声明的行，都与实测一致。`,
  catalogDisagrees: (n) => `GET /strategies 为 ${n} 个方案声明了故障结果，其中有些与实测不符：`,
  heading: (stamp) => `stocklab 故障实验 ${stamp}`,
  measured: (command, file, method, asExpected, cases) => `测量命令 \`${command}\`（\`${file}\`）：${method}${cases} 个用例中 ${asExpected} 个符合预期。`,
  scenarios: '场景',
  notAsExpected: (n) => `不符合预期（${n}）`,
  noneNotAsExpected: '无。',
  details: '明细',
  failed: '失败',
  answers: '响应',
  allAsExpected: (minutes) => `\nfaults：所有用例都符合预期（用时 ${minutes} 分钟）`,
  someNot: (cases, mismatches) => `\nfaults：${cases} 个用例不符合预期，${mismatches} 处目录声明不符（见报告）`,
  html: {
    title: 'stocklab：故障实验',
    holderFrozen: '持锁者被冻结超过租期',
    pauseChart: (sell) => `被冻结的持锁者在租期结束后写入时的超卖件数（其间卖出 N = ${sell} 件）`,
    unitsOversold: '超卖件数',
    unfenced: '无防护令牌',
    fenced: '有防护令牌',
    allCases: '全部用例',
    catalog: '方案目录的声明',
    descriptionsNote: '每个场景的说明（英文原文，与代码一致）：',
  },
};

export const FAULT_WORDS: Readonly<Record<Lang, FaultWords>> = { en, zh };
