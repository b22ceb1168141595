// Every word the round-trip sweep's report says, in English and in Chinese: the tables' headings,
// the method line, what limits each strategy, how to read the tables, the chart. `zh` is typed by
// `en` (src/lang.ts's Translation): a key missing from either fails to compile. Strategy names and
// the figures stay as they are.
import type { Lang, Translation } from '../../src/lang.js';

/** What the method line says about a sweep (sweep-report.ts computes it from the report). */
export interface SweepMethodParts {
  strategies: number;
  rtts: string;
  rounds: number;
  windowSeconds: number;
  connections: number;
  date: string;
  nproc: number;
  cpu: string;
  node: string;
  seconds: string;
}

const en = {
  rtt: (ms: number) => `${ms} ms`,
  and: ', ',
  lastAnd: ' and ',
  then: '; ',
  oneRequest: (samples: number) => `one request, median of ${samples} (min–max)`,
  direct: 'directly (no forwarder)',
  forwarderCost: "a forwarder's own cost at 0 (timed in turn with the direct link)",
  throughForwarders: (rtt: string) => `through the forwarders at ${rtt}`,
  exact: 'exact',
  expectedPerInstance: ' (expected: a lock per instance)',
  strategy: 'strategy',
  soldAt: (rtt: string) => `sold/s at ${rtt}`,
  boundAt: (rtt: string) => `bound at ${rtt}`,
  fraction: 'fraction',
  race: 'race',
  /** one strategy above its bound, or several at the same round trip: the reason said once */
  aboveOne: (name: string, rtt: string, times: string) => `${name} at ${rtt} sells ${times}× its bound: `,
  aboveMany: (rtt: string, list: string) => `At ${rtt}, ${list} sell above their bound: `,
  aboveEach: (name: string, times: string) => `${name} (${times}×)`,
  aboveWhy:
    'fewer round trips than k sit between one sale and the next. k counts every message of a sale as a round trip, but a waiter sends some before its turn (its queue node, its first look at the queue, while the holder works) and some travel together; and a row lock held inside the server (sql-update), a lock per instance (mutex) or a hold passed inside an instance with no round trip (the +line rows) take whole round trips off the path: 1/(k·r) does not limit it.',
  aboveWhyMany:
    'fewer round trips than k sit between one sale and the next. k counts every message of a sale as a round trip, but a waiter sends some before its turn (its queue node, its first look at the queue, while the holder works) and some travel together; and a row lock held inside the server (sql-update), a lock per instance (mutex) or a hold passed inside an instance with no round trip (the +line rows) take whole round trips off the path: 1/(k·r) does not limit them.',
  belowHalf: (name: string, rtt: string, fraction: string) => `${name} at ${rtt} reaches ${fraction} of its bound`,
  besidesRoundTrips: ': something besides the round trips limits it.',
  notTheRoundTrip: (sells: string, quickest: string, atRtt: string, kept: string) =>
    `, and sells ${sells}/s against ${quickest}/s at ${atRtt} (${kept} of it): the round trip is not what limits it; its waiters' retry interval (retryMs) or the CPU is.`,
  costsMore: (kept: string, atRtt: string) =>
    `, and ${kept} of its goodput at ${atRtt}: the round trips cost it more than k counts (waits and retries under contention).`,
  notes: {
    rttZero: 'At rtt 0 the links still pass through the forwarders, set to 0: the cost of one, against the servers directly, is in the first table.',
  },
  definitions: [
    'k: the round trips in the serial path of one sale, the messages the servers counted per sale with one request at a time (Redis commands by MONITOR, MySQL statements, ZooKeeper requests), the RedLock masters counted once as they are asked in parallel. Commands a client pipelines are counted apart, so k can be above the true count.',
    'bound: 1/(k·r) sales per second, for a lock that serializes the cluster: no sale can start its serial path before the previous one ends. It does not limit a strategy that holds nothing across a round trip (sql-update: one conditional UPDATE, its row lock held inside MySQL), a lock per instance (mutex, three instances at once), or a lock whose hold passes between requests inside an instance (the process line: k is counted one request at a time, when every sale takes the lock afresh); their fractions are for comparison only.',
    'fraction: the median goodput divided by the bound.',
    'race: one oversell race through nginx at that round trip (exact: every sale left the store once, nothing oversold).',
  ],
  method: (m: SweepMethodParts) =>
    `${m.strategies} strategies through nginx at round trips of ${m.rtts}; ${m.rounds} rounds of ${m.windowSeconds} s windows at ${m.connections} connections, every round trip and every strategy once per round in a rotated order; median (min–max) of the rounds. ${m.date}, ${m.nproc} cores (${m.cpu}), Node ${m.node}, ${m.seconds} s.`,
  from: (file: string, method: string) => `From \`${file}\`: ${method}`,
  fractionOfBound: 'fraction of the bound',
  races: 'races',
  raceAt: (rtt: string, verdict: string) => `${rtt}: ${verdict}`,
  exactAtEach: 'exact at each',
  summaryFrom: (file: string, day: string, nproc: number, rounds: number, page: string, link: string) =>
    `From \`${file}\` (${day}, ${nproc} cores, medians of ${rounds} rounds; the links' own round trips and the ranges are in [${page}](${link})).`,
  lease: {
    header: ['strategy', 'round trip', 'validity left after the acquire, about', 'sold/s', 'race: sold', 'race: 503 lock_lost', 'race: other 503', 'race'],
    params: (p: string) => `Every request carried ${p}.`,
    validity:
      'validity left after the acquire: ttlMs − (ttlMs × 0.01 + 2 ms) − one round trip (the masters are asked in parallel), what remains for the read, the work and the write; RedLock checks it before the write and refuses with 503 lock_lost when it has run out.',
    none: 'none',
  },
  html: {
    title: 'stocklab: goodput against the round trip',
    pageTitle: (stamp: string) => `stocklab round-trip sweep ${stamp}`,
    chart: 'Goodput against the round trip: units sold per second',
    soldPerSecond: 'sold/s',
    xLabel: 'round trip (ms)',
    links: 'The links',
    eachStrategy: 'Each strategy against its bound',
    at: (name: string, ms: number) => `${name} at ${ms}`,
  },
} as const;

export type SweepWords = Translation<typeof en>;

const zh: SweepWords = {
  rtt: (ms) => `${ms} 毫秒`,
  and: '、',
  lastAnd: ' 和 ',
  then: '；',
  oneRequest: (samples) => `单个请求，${samples} 次的中位数（最小–最大）`,
  direct: '直连（不经转发器）',
  forwarderCost: '往返为 0 时一个转发器自身的开销（与直连交替计时）',
  throughForwarders: (rtt) => `经转发器，往返 ${rtt}`,
  exact: '准确',
  expectedPerInstance: '（预期之中：每个实例一把锁）',
  strategy: '方案',
  soldAt: (rtt) => `件/秒（${rtt}）`,
  boundAt: (rtt) => `上限（${rtt}）`,
  fraction: '占上限',
  race: '抢购',
  aboveOne: (name, rtt, times) => `${name} 在 ${rtt}时卖出了上限的 ${times} 倍：`,
  aboveMany: (rtt, list) => `${rtt}时，${list}都卖得比上限多：`,
  aboveEach: (name, times) => `${name}（${times} 倍）`,
  aboveWhy:
    '相邻两单之间隔着的往返次数少于 k。k 把一单的每条消息都算作一次往返，但等待者有些消息在轮到自己之前就发了（持锁者干活时，它已经建好排队节点、看过一次队列），有些消息是一起发出的；而行锁在服务器内部持有（sql-update）、每个实例一把锁（mutex），或者持有权在实例内直接交接、不经往返（各 +line 行），都会把整次往返从串行路径上拿掉：1/(k·r) 限制不了它。',
  aboveWhyMany:
    '相邻两单之间隔着的往返次数少于 k。k 把一单的每条消息都算作一次往返，但等待者有些消息在轮到自己之前就发了（持锁者干活时，它已经建好排队节点、看过一次队列），有些消息是一起发出的；而行锁在服务器内部持有（sql-update）、每个实例一把锁（mutex），或者持有权在实例内直接交接、不经往返（各 +line 行），都会把整次往返从串行路径上拿掉：1/(k·r) 限制不了它们。',
  belowHalf: (name, rtt, fraction) => `${name} 在 ${rtt}时只达到上限的 ${fraction}`,
  besidesRoundTrips: '：限制它的是往返之外的东西。',
  notTheRoundTrip: (sells, quickest, atRtt, kept) =>
    `，每秒卖出 ${sells} 件，而 ${atRtt}时是 ${quickest} 件（为其 ${kept}）：限制它的不是往返，而是等待者的重试间隔（retryMs）或 CPU。`,
  costsMore: (kept, atRtt) => `，有效吞吐只有 ${atRtt}时的 ${kept}：往返让它付出的比 k 算出来的更多（争抢下的等待和重试）。`,
  notes: {
    rttZero: '往返为 0 时，链路仍然经过转发器，只是延迟设为 0：一个转发器的开销（相对于直连服务器）见第一张表。',
  },
  definitions: [
    'k：一单串行路径上的往返次数，即一次只发一个请求时服务器为每单计数的消息（Redis 命令由 MONITOR 计数，MySQL 的语句，ZooKeeper 的请求），红锁的多个主节点是并行询问的，只算一次。客户端用管道发出的命令分开计数，所以 k 可能高于真实的次数。',
    '上限：1/(k·r) 单每秒，针对让整个集群串行的锁：前一单的串行路径结束之前，下一单不能开始。它限制不了跨往返不持有任何东西的方案（sql-update：一条带条件的 UPDATE，行锁在 MySQL 内部持有）、每个实例一把锁的方案（mutex，三个实例同时进行），也限制不了持有权在实例内的请求之间传递的锁（进程内队列：k 是一次一个请求时计的，那时每一单都重新加锁）；它们的比例只供对照。',
    '占上限：有效吞吐的中位数除以上限。',
    '抢购：在该往返时延下经 nginx 做一次超卖抢购（准确：每一单都恰好离开存储一次，没有超卖）。',
  ],
  method: (m) =>
    `${m.strategies} 个方案经 nginx，往返时延为 ${m.rtts}；共 ${m.rounds} 轮，每个窗口 ${m.windowSeconds} 秒、${m.connections} 个连接，每一轮里每个往返时延和每个方案各一次，顺序轮换；取各轮的中位数（最小–最大）。${m.date}，${m.nproc} 核（${m.cpu}），Node ${m.node}，用时 ${m.seconds} 秒。`,
  from: (file, method) => `来自 \`${file}\`：${method}`,
  fractionOfBound: '占上限',
  races: '抢购',
  raceAt: (rtt, verdict) => `${rtt}：${verdict}`,
  exactAtEach: '每次都准确',
  summaryFrom: (file, day, nproc, rounds, page, link) =>
    `来自 \`${file}\`（${day}，${nproc} 核，${rounds} 轮的中位数；链路本身的往返时间和各项的范围见 [${page}](${link})）。`,
  lease: {
    header: ['方案', '往返', '加锁后剩余的有效时间，约', '件/秒', '抢购：售出', '抢购：503 lock_lost', '抢购：其他 503', '抢购'],
    params: (p) => `每个请求都带着 ${p}。`,
    validity:
      '加锁后剩余的有效时间：ttlMs − (ttlMs × 0.01 + 2 毫秒) − 一次往返（各主节点是并行询问的），读库存、做业务和写库存都得在这段时间里完成；红锁在写之前检查它，用完了就以 503 lock_lost 拒绝。',
    none: '没有',
  },
  html: {
    title: 'stocklab：有效吞吐与往返时延',
    pageTitle: (stamp) => `stocklab 往返时延扫描 ${stamp}`,
    chart: '有效吞吐随往返时延的变化：每秒售出件数',
    soldPerSecond: '件/秒',
    xLabel: '往返时延（毫秒）',
    links: '链路',
    eachStrategy: '各方案与其上限',
    at: (name, ms) => `${name}，往返 ${ms} 毫秒`,
  },
};

export const SWEEP_WORDS: Readonly<Record<Lang, SweepWords>> = { en, zh };
