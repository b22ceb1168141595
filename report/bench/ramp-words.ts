// Every word the overload ramp's report says, in English and in Chinese: the tables' headings, the
// method line, how to read the table, where p99 passes a second, the charts. `zh` is typed by `en`
// (src/lang.ts's Translation): a key missing from either fails to compile. Strategy names, answers
// and their error codes stay as the code writes them.
import type { Lang, Translation } from '../../src/lang.js';
import type { RunMachine } from './words.js';

export const RAMP_COLUMNS = [
  'strategy',
  'clients',
  'goodput/s',
  'p50 ms',
  'p99 ms',
  '200',
  '409',
  '503 by reason',
  'other',
  'no answer',
  'oversold',
  'note',
] as const;
export const RAMP_SUMMARY_COLUMNS = ['strategy', 'clients', 'p99 passes 1 s at', 'best goodput/s', 'refused by nginx', 'no answer', 'oversold'] as const;

/** What the method line says about a ramp (ramp-report.ts computes it from the report). */
export interface RampMethodParts extends RunMachine {
  target: string;
  requestsPerClient: number;
  clientsPerProcess: number;
  params: string;
  maxSeconds: number;
}

const en = {
  columns: {
    strategy: 'strategy',
    clients: 'clients',
    'goodput/s': 'goodput/s',
    'p50 ms': 'p50 ms',
    'p99 ms': 'p99 ms',
    '200': '200',
    '409': '409',
    '503 by reason': '503 by reason',
    other: 'other',
    'no answer': 'no answer',
    oversold: 'oversold',
    note: 'note',
  } satisfies Record<(typeof RAMP_COLUMNS)[number], string>,
  summaryColumns: {
    strategy: 'strategy',
    clients: 'clients',
    'p99 passes 1 s at': 'p99 passes 1 s at',
    'best goodput/s': 'best goodput/s',
    'refused by nginx': 'refused by nginx',
    'no answer': 'no answer',
    oversold: 'oversold',
  } satisfies Record<(typeof RAMP_SUMMARY_COLUMNS)[number], string>,
  and: ', ',
  then: '; ',
  clientLimit: (why: string) => `client limit: ${why}`,
  truncated: 'truncated',
  method: (m: RampMethodParts) =>
    `Through ${m.target}: at each step N clients (keep-alive connections) send ${m.requestsPerClient}N requests for N units; ` +
    `the load is spread over one load process per ${m.clientsPerProcess} clients; ${m.params}; a step is cut after ${m.maxSeconds} s. ` +
    `${m.nproc} CPUs (${m.cpu}), Node ${m.node}; ${m.date}; ${m.minutes} min.`,
  definitions: [
    "goodput/s = 200 answers ÷ the step's duration (first request to last answer). p50/p99 over every answer, refusals included.",
    "503 by reason: `busy (nginx)` is nginx past its capacity (it answered itself; no instance saw the request), `busy` an instance past MAX_IN_FLIGHT, the others the strategy's own refusals. All sold nothing.",
    'no answer = requests that got no HTTP answer: a reset, a socket closed unanswered (closed), a timeout. A client cannot tell those from a sale.',
    'oversold = 200 answers − units that left the store (read from MySQL or Redis directly).',
  ],
  crossing: (name: string, seconds: number, at: number | undefined) =>
    `${name}: p99 passes ${seconds} s ${at === undefined ? 'at no step' : `at ${at} clients`}.`,
  noStep: 'no step',
  atClients: (n: number) => `${n} clients`,
  nginxBusy: (n: number) => `${n} (fast 503 busy)`,
  html: {
    title: 'stocklab: the overload ramp',
    pageTitle: (stamp: string) => `stocklab ramp ${stamp}`,
    everyStep: 'Every step',
    clients: 'concurrent clients',
    goodput: 'Goodput: units sold per second',
    soldPerSecond: 'sold/s',
    refusals: 'Refusals: share of the requests answered 503 (nothing sold)',
    percent: '% of requests',
    unreadable: 'Requests with no HTTP answer, or an answer that cannot be read as sold or not (502, 500, outcome_unknown)',
    requests: 'requests',
    p99: 'p99 latency',
    ms: 'ms',
    at: (name: string, clients: number) => `${name} at ${clients}`,
  },
  docs: {
    from: (file: string) => `From \`${file}\``,
    shared: ', a 2-core machine shared with other work.',
  },
} as const;

export type RampWords = Translation<typeof en>;

const zh: RampWords = {
  columns: {
    strategy: '方案',
    clients: '客户端',
    'goodput/s': '有效吞吐/秒',
    'p50 ms': 'p50 毫秒',
    'p99 ms': 'p99 毫秒',
    '200': '200',
    '409': '409',
    '503 by reason': '503（按原因）',
    other: '其他',
    'no answer': '未响应',
    oversold: '超卖',
    note: '备注',
  },
  summaryColumns: {
    strategy: '方案',
    clients: '客户端',
    'p99 passes 1 s at': 'p99 超过 1 秒的级别',
    'best goodput/s': '最高有效吞吐/秒',
    'refused by nginx': '被 nginx 拒绝',
    'no answer': '未响应',
    oversold: '超卖',
  },
  and: '，',
  then: '；',
  clientLimit: (why) => `客户端上限：${why}`,
  truncated: '被截断',
  method: (m) =>
    `经 ${m.target}：每一级由 N 个客户端（keep-alive 连接）发出 ${m.requestsPerClient}N 个请求抢 N 件；` +
    `每 ${m.clientsPerProcess} 个客户端一个负载进程；${m.params}；每一级最多 ${m.maxSeconds} 秒。` +
    `${m.nproc} 个 CPU（${m.cpu}），Node ${m.node}；${m.date}；用时 ${m.minutes} 分钟。`,
  definitions: [
    '有效吞吐/秒 = 200 响应数 ÷ 这一级的时长（从第一个请求到最后一个响应）。p50/p99 统计每一个响应，包括拒绝。',
    '503（按原因）：`busy (nginx)` 是 nginx 超出了容量（它自己作答，没有实例见过这个请求），`busy` 是某个实例超出了 MAX_IN_FLIGHT，其余是方案自己的拒绝。它们都没有卖出。',
    '未响应 = 没有得到 HTTP 响应的请求：连接被重置、socket 未作答就被关闭（closed）、超时。客户端分不清它们是不是已经卖出。',
    '超卖 = 200 响应数 − 离开存储的件数（直接从 MySQL 或 Redis 读出）。',
  ],
  crossing: (name, seconds, at) => `${name}：p99 ${at === undefined ? `在任何一级都没有超过 ${seconds} 秒` : `在 ${at} 个客户端时超过 ${seconds} 秒`}。`,
  noStep: '没有超过',
  atClients: (n) => `${n} 个客户端`,
  nginxBusy: (n) => `${n}（快速的 503 busy）`,
  html: {
    title: 'stocklab：过载阶梯',
    pageTitle: (stamp) => `stocklab 过载阶梯 ${stamp}`,
    everyStep: '每一级',
    clients: '并发客户端数',
    goodput: '有效吞吐：每秒售出件数',
    soldPerSecond: '件/秒',
    refusals: '拒绝：得到 503 的请求所占比例（什么也没卖出）',
    percent: '占请求的 %',
    unreadable: '没有得到 HTTP 响应的请求，或响应无法判断是否卖出（502、500、outcome_unknown）',
    requests: '请求数',
    p99: 'p99 延迟',
    ms: '毫秒',
    at: (name, clients) => `${name}，${clients} 个客户端`,
  },
  docs: {
    from: (file) => `来自 \`${file}\``,
    shared: '，在一台还有别的负载的 2 核机器上。',
  },
};

export const RAMP_WORDS: Readonly<Record<Lang, RampWords>> = { en, zh };
