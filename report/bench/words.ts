// Every word the bench's reports say, in English and in Chinese: the markdown tables' headings, the
// method paragraph, the HTML report, the terminal's closing lines and the README's summary. `zh` is
// typed by `en` (src/lang.ts's Translation): a key or a line missing from either fails to compile.
// Strategy names, units and the figures stay as they are; a cell's data is never translated.
import type { Lang, Translation } from '../../src/lang.js';
import type { Topology } from './topology.js';

/** Where and when a run was made, as every report's method line ends. */
export interface RunMachine {
  nproc: number;
  cpu: string;
  node: string;
  date: string;
  minutes: string;
}

/** The machine line's figures from a report's own record of them. */
export function runMachine(r: { machine: { nproc: number; cpu: string; node: string }; date: string; seconds: number }): RunMachine {
  return { nproc: r.machine.nproc, cpu: r.machine.cpu, node: r.machine.node, date: r.date, minutes: (r.seconds / 60).toFixed(1) };
}

/** What the method paragraph says about a run (table.ts computes it from the report). */
export interface MethodParts extends RunMachine {
  rounds: number;
  warmup: number;
  window: number;
  connections: number;
  workMs: number;
  /** ", ttlMs 300, waitMs 5000" or '' */
  lease: string;
  race: string;
  /** the course's full-size race for its headline strategies, when there are any */
  course?: { strategies: string[]; requests: number; initial: number };
}

const en = {
  topology: { one: '1 instance', three: '3 via nginx' } satisfies Record<Topology, string>,
  runColumns: {
    family: 'family',
    strategy: 'strategy',
    store: 'store',
    instances: 'instances',
    'race units': 'race units',
    'race: 200 / 409 / 503 / left': 'race: 200 / 409 / 503 / left',
    oversold: 'oversold',
    'goodput/s': 'goodput/s',
    '503/s': '503/s',
    'p50 ms': 'p50 ms',
    'p99 ms': 'p99 ms',
    'vs mutex': 'vs mutex',
    rank: 'rank',
    'msgs/sale': 'msgs/sale',
    course: 'course',
  },
  ceilingColumns: { 'GET /noop': 'GET /noop', 'autocannon req/s': 'autocannon req/s', 'wrk req/s': 'wrk req/s', 'autocannon ÷ wrk': 'autocannon ÷ wrk' },
  definitions: [
    'goodput/s = 200 answers per second in the measured windows: median of the rounds (min–max). 503/s are refusals, counted apart. The stock does not run out during a measured span: a last window that sells out ends its span there.',
    'race: 200 / 409 / 503 / left = answers of the race (more requests than its race units): sold, sold out, refused (503s that sold nothing), and the units left in the store; a 503 outcome_unknown (the write was sent, not confirmed) is counted apart. oversold = 200 answers − units that really left the store (read from MySQL or Redis directly): the worst of the race and of every window, never a median. With unanswered requests it is a lower bound (≥).',
    'vs mutex = median goodput ÷ median goodput of mutex on one instance, the serialization limit of the same critical section.',
    "rank = 1 + the strategies on the same topology that were faster in every round. (tie) = its range overlaps another's: the repeats cannot tell them apart.",
    "msgs/sale = the round trips in one sale's serial path, as the servers count them (Redis and RedLock commands, the five masters once, MySQL and PostgreSQL statements, ZooKeeper requests, etcd messages), for sales one at a time on one instance (as npm run round-trips does at c=1).",
  ],
  ties: (groups: string) => `Ties (overlapping ranges): ${groups}.`,
  soldNothing: 'sold nothing',
  soldNothingNote: (strategy: string, topology: string, ok: number, refused: number, answered: number) =>
    `${strategy} (${topology}) sold nothing in its measured windows, so it has no ratio and no rank: that is a finding, not a speed. ` +
    `In its race, ${ok} of ${answered} answered requests sold and ${refused} were refused (503): its contenders kept failing to take the lock within their wait.`,
  method: (m: MethodParts) =>
    `${m.rounds} rounds; in each, every strategy gets ${m.warmup} s of discarded warm-up and a ${m.window} s measured window ` +
    `at ${m.connections} connections, in a rotated order; workMs ${m.workMs}${m.lease}. ${m.race}` +
    `${m.course ? ` (${m.course.strategies.join(' and ')}: the course's ${m.course.requests} for ${m.course.initial})` : ''}. ` +
    `${m.nproc} CPUs (${m.cpu}), Node ${m.node}; ${m.date}; ${m.minutes} min.`,
  raceFixed: (requests: number, initial: number) => `Then one race each: ${requests} requests for ${initial} units`,
  raceSized: (seconds: number, min: number, max: number, extra: number) =>
    `Then one race each: sized from the strategy's goodput to last about ${seconds} s (${min} to ${max} units, ${extra} more requests than units)`,
  raceSoldOut: (share: number, min: number, maxSeconds: number) =>
    `Each strategy's last window is its race: its stock, sized from the goodput of the rounds before, runs out about ${Math.round(share * 100)} % of the way through the measured span (at least ${min} units), the load goes on until the first 409 sold_out, and the store is counted; the span ends where the stock ran out. A lock too slow to sell out within ${maxSeconds} s is raced apart`,
  heading: (stamp: string) => `stocklab bench ${stamp}`,
  files: (json: string, md: string, html: string) => `results: ${json}\n         ${md}\nreport:  ${html}`,
  labDone: (minutes: string, stopped: boolean, html: string) =>
    `\nlab done in ${minutes} min${stopped ? '; the cluster is stopped' : ''}. Open the report: ${html}`,
  html: {
    title: 'stocklab: the oversell comparison',
    machine: (platform: string, three: string, one: string | undefined, source: string) =>
      `Machine: ${platform}. Target: ${three} (3 instances via nginx)${one ? `, ${one} (1 instance)` : ''}, from ${source}.`,
    goodput: 'Goodput',
    goodputChart: (rounds: number) => `Goodput per strategy: units sold per second, median of ${rounds} rounds (dashed: GET /noop on the same path)`,
    soldPerSecond: 'sold/s',
    oversold: 'Oversold',
    oversoldChart: 'Oversold units per strategy, worst of the race and every window (anything above 0 sold stock that was not there)',
    unitsOversold: 'units oversold',
    notMeasured: 'not measured',
    ceiling: 'Bench ceiling',
    allRuns: 'All runs',
    ceilingNote:
      'If a strategy comes close to the GET /noop ceiling, the load generator or the HTTP path, not the strategy, was the limit; the ceiling table compares the load generator with wrk.',
    truncatedNote: (seconds: number) => `* in a chart: that strategy's race was cut at ${seconds} s (truncated).`,
  },
  docs: {
    measured: (command: string, file: string, method: string, platform: string) => `Measured with \`${command}\` (\`${file}\`): ${method} ${platform}.`,
    summaryHeader: ['family', 'use (× mutex: 1 instance / 3)', 'oversells', 'slowest exact (× mutex)'],
    whatBreaks: (command: string) => `what breaks them (\`${command}\`)`,
    reference: (perSecond: string) => `\`mutex\` on one instance, the reference: ${perSecond} units sold per second.`,
    lined: (pairs: string) =>
      `The course's locks, taken per request, beside the same locks behind a process line (× mutex, 1 instance / 3 via nginx): ${pairs}.`,
    linedPair: (perRequest: string, lined: string) => `${perRequest} against ${lined}`,
    oversoldUnits: (name: string, n: string) => `${name}: ${n} units`,
    scenarioOutcome: (scenario: string, outcome: string) => `${scenario}: ${outcome}`,
    outcomeBy: (outcome: string, who: string) => `${outcome}, ${who}`,
    /** between names, and between a cell's clauses */
    and: ', ',
    then: '; ',
    overLease: (names: string) => `${names} once work > lease`,
    none: 'none',
    notInFaultLab: 'not in the fault lab',
    noneMeasured: 'none measured',
    notRun: 'not run',
    oversoldN: (n: number | string) => `oversold ${n}`,
    deductedTwice: 'deducted twice',
    neverRecovers: 'never recovers',
    locks: (n: number) => `${n} locks`,
  },
} as const;

export type BenchWords = Translation<typeof en>;

const zh: BenchWords = {
  topology: { one: '单实例', three: '三实例（经 nginx）' },
  runColumns: {
    family: '类别',
    strategy: '方案',
    store: '存储',
    instances: '实例',
    'race units': '抢购件数',
    'race: 200 / 409 / 503 / left': '抢购：200 / 409 / 503 / 剩余',
    oversold: '超卖',
    'goodput/s': '有效吞吐/秒',
    '503/s': '503/秒',
    'p50 ms': 'p50 毫秒',
    'p99 ms': 'p99 毫秒',
    'vs mutex': '相对 mutex',
    rank: '名次',
    'msgs/sale': '每单消息数',
    course: '课程结论',
  },
  ceilingColumns: { 'GET /noop': 'GET /noop', 'autocannon req/s': 'autocannon 请求/秒', 'wrk req/s': 'wrk 请求/秒', 'autocannon ÷ wrk': 'autocannon ÷ wrk' },
  definitions: [
    '有效吞吐/秒 = 计量窗口内每秒的 200 响应数：取各轮的中位数（括号内为最小–最大）。503/秒 是被拒绝的请求，单独计数。计量时段内库存不会卖完：最后一个窗口若卖完，计量时段就在卖完处结束。',
    '抢购：200 / 409 / 503 / 剩余 = 抢购（请求数多于件数）的响应：售出、已售罄、被拒绝（没有卖出的 503），以及存储里剩下的件数；503 outcome_unknown（写入已发出但未确认）单独计数。超卖 = 200 响应数 − 真正离开存储的件数（直接从 MySQL 或 Redis 读出）：取抢购和每个窗口中最坏的一次，从不取中位数。有请求未得到响应时，它是一个下界（≥）。',
    '相对 mutex = 有效吞吐中位数 ÷ mutex 在单实例上的有效吞吐中位数，即同一段临界区串行执行的上限。',
    '名次 = 1 + 同一拓扑下每一轮都比它快的方案数。(tie) = 它的区间与别的方案重叠：重复测量分不出高下。',
    '每单消息数 = 一单串行路径上的往返次数，由服务器自己计数（Redis 和红锁的命令，五个主节点只算一次，MySQL 和 PostgreSQL 的语句，ZooKeeper 的请求，etcd 的消息），在单实例上一次卖一件（与 npm run round-trips 的 c=1 相同）。',
  ],
  ties: (groups) => `并列（区间重叠）：${groups}。`,
  soldNothing: '没有卖出',
  soldNothingNote: (strategy, topology, ok, refused, answered) =>
    `${strategy}（${topology}）在计量窗口内一件也没有卖出，所以没有比值，也没有名次：这一行说明的是问题，不是速度。` +
    `在它的抢购里，${answered} 个得到响应的请求中 ${ok} 个售出、${refused} 个被拒绝（503）：竞争者一次次在等待时限内拿不到锁。`,
  method: (m) =>
    `共 ${m.rounds} 轮；每一轮里，每个方案先做 ${m.warmup} 秒不计入的预热，再在 ${m.connections} 个并发连接下计量 ${m.window} 秒，方案顺序轮换；workMs ${m.workMs}${m.lease}。` +
    `${m.race}${m.course ? `；${m.course.strategies.join(' 和 ')} 按课程的 ${m.course.requests} 个请求抢 ${m.course.initial} 件` : ''}。` +
    `${m.nproc} 个 CPU（${m.cpu}），Node ${m.node}；${m.date}；用时 ${m.minutes} 分钟。`,
  raceFixed: (requests, initial) => `然后每个方案抢购一次：${requests} 个请求抢 ${initial} 件`,
  raceSized: (seconds, min, max, extra) =>
    `然后每个方案抢购一次：按该方案的有效吞吐确定件数，使抢购持续约 ${seconds} 秒（${min} 到 ${max} 件，请求数比件数多 ${extra}）`,
  raceSoldOut: (share, min, maxSeconds) =>
    `每个方案的最后一个窗口就是它的抢购：库存按前几轮的有效吞吐确定，约在计量时段的 ${Math.round(share * 100)}% 处卖完（至少 ${min} 件），压力一直持续到第一个 409 sold_out，再从存储里清点；计量时段在库存卖完处结束。${maxSeconds} 秒内卖不完的慢锁另做一次抢购`,
  heading: (stamp) => `stocklab 压测 ${stamp}`,
  files: (json, md, html) => `结果：${json}\n      ${md}\n报告：${html}`,
  labDone: (minutes, stopped, html) => `\nlab 完成，用时 ${minutes} 分钟${stopped ? '；集群已停止' : ''}。打开报告：${html}`,
  html: {
    title: 'stocklab：超卖对比',
    machine: (platform, three, one, source) => `机器：${platform}。目标：${three}（三个实例，经 nginx）${one ? `，${one}（单实例）` : ''}，来自 ${source}。`,
    goodput: '有效吞吐',
    goodputChart: (rounds) => `各方案的有效吞吐：每秒售出件数，${rounds} 轮的中位数（虚线：同一路径上的 GET /noop）`,
    soldPerSecond: '件/秒',
    oversold: '超卖',
    oversoldChart: '各方案的超卖件数，取抢购和每个窗口中最坏的一次（大于 0 就是卖出了并不存在的库存）',
    unitsOversold: '超卖件数',
    notMeasured: '未测',
    ceiling: '压测上限',
    allRuns: '全部结果',
    ceilingNote: '如果某个方案接近 GET /noop 的上限，瓶颈在压测工具或 HTTP 路径，而不在方案本身；上限表把压测工具与 wrk 做了对比。',
    truncatedNote: (seconds) => `图中的 *：该方案的抢购在 ${seconds} 秒时被截断。`,
  },
  docs: {
    measured: (command, file, method, platform) => `测量命令 \`${command}\`（\`${file}\`）：${method}${platform}。`,
    summaryHeader: ['类别', '推荐（相对 mutex：单实例 / 三实例）', '会超卖的', '最慢的准确方案（相对 mutex）'],
    whatBreaks: (command) => `什么故障会击穿它们（\`${command}\`）`,
    reference: (perSecond) => `基准是单实例上的 \`mutex\`：每秒售出 ${perSecond} 件。`,
    lined: (pairs) => `课程里按请求加锁的锁，和放到进程内队列后面的同一把锁（相对 mutex：单实例 / 三实例（经 nginx））：${pairs}。`,
    linedPair: (perRequest, lined) => `${perRequest} 对 ${lined}`,
    oversoldUnits: (name, n) => `${name}：${n} 件`,
    scenarioOutcome: (scenario, outcome) => `${scenario}：${outcome}`,
    outcomeBy: (outcome, who) => `${outcome}（${who}）`,
    and: '、',
    then: '；',
    overLease: (names) => `${names}：业务时间超过租期时`,
    none: '无',
    notInFaultLab: '不在故障实验中',
    noneMeasured: '未测到',
    notRun: '未运行',
    oversoldN: (n) => `超卖 ${n}`,
    deductedTwice: '重复扣减',
    neverRecovers: '一直无法恢复',
    locks: (n) => `${n} 把锁`,
  },
};

export const BENCH_WORDS: Readonly<Record<Lang, BenchWords>> = { en, zh };
