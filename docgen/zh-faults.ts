// The fault rows' cells in Chinese, for the twins under docs/zh-CN/ (`npm run docs`). The fault lab
// writes its cells in English (faults/report/cells.ts: a row's variant and its expected note); a
// Chinese page shows them in Chinese, with every figure kept and in its place. A note this file does
// not know stays as it is, so a new note in the fault lab shows in English until it has its line
// here, never wrong.
import { COLUMNS as FAULT_COLUMNS } from '../faults/report/cells.js';
import { zhCell } from '../report/zh-cells.js';

/**
 * One English note with its figures as `#`, and its Chinese with the figures as `{0}`, `{1}`… in the
 * order the English gives them (so the Chinese may place them where its sentence needs them).
 */
type Phrase = readonly [en: string, zh: string];

/** The fault rows' variants (faults/scenarios/). */
const VARIANTS: readonly Phrase[] = [
  ['kill -#', 'kill -{0}'],
  ['unfenced', '不加防护令牌'],
  ['fenced', '加防护令牌'],
  ['project nginx', '项目的 nginx 配置'],
  ['default nginx', 'nginx 默认配置'],
  ['mysql stopped', 'MySQL 停机'],
  ['redis stopped', 'Redis 停机'],
  ['acquire reply lost', '加锁的响应丢失'],
  ['killed at pause=after-setnx', '停在 pause=after-setnx 处被杀'],
  ['killed at pause=after-acquire', '停在 pause=after-acquire 处被杀'],
  ['lease ends before the delete', '租期在 DEL 之前到期'],
  ["B's clock +# ms", 'B 的时钟快 {0} 毫秒'],
  ['two frozen after their reads', '两个请求读完后都被冻结'],
  ['# waiters, hand-offs one by one', '{0} 个等待者，逐个交接'],
  ['A on # of #, a jump on # of them', 'A 持有 {1} 个中的 {0} 个，其中 {2} 个时钟跳变'],
  ['A on # of #, a jump on #', 'A 持有 {1} 个中的 {0} 个，{2} 个时钟跳变'],
  ['split vote, # contenders, jitter off', '选票分散，{0} 个竞争者，不加随机抖动'],
  ['split vote, # contenders, jitter on', '选票分散，{0} 个竞争者，加随机抖动'],
  ['# dead waiter(s) ahead', '前面有 {0} 个已死的等待者'],
  ['master + replica, Sentinel', '主节点 + 从节点，Sentinel'],
  ['# masters, one killed', '{0} 个主节点，杀掉其中一个'],
  ['in memory, restarted at once', '只存内存，立即重启'],
  ['restart delayed # ms (> ttl)', '延迟 {0} 毫秒重启（> ttl）'],
  ['appendfsync always', 'appendfsync always'],
  ['#-node ensemble, leader killed', '{0} 节点集群，杀掉 leader'],
  ['holder cut from redis, unfenced', '持锁者与 Redis 断开，不加防护令牌'],
  ['holder cut from redis, fenced', '持锁者与 Redis 断开，加防护令牌'],
  ['holder cut from zookeeper, unfenced', '持锁者与 ZooKeeper 断开，不加防护令牌'],
  ['holder cut from zookeeper, fenced', '持锁者与 ZooKeeper 断开，加防护令牌'],
  ['holder cut from mysql, unfenced', '持锁者与 MySQL 断开，不加防护令牌'],
  ['holder cut from etcd, unfenced', '持锁者与 etcd 断开，不加防护令牌'],
  ['holder cut from etcd, fenced', '持锁者与 etcd 断开，加防护令牌'],
  ['nginx cut from the instance with a request in flight', 'nginx 与一个有请求在途的实例断开'],
  ['masters split #|#', '主节点按 {0}|{1} 分裂'],
  ['masters split #|#|#', '主节点按 {0}|{1}|{2} 分裂'],
  ['instance cut from MySQL mid-transaction', '实例在事务中途与 MySQL 断开'],
  ['#-node ensemble, leader cut off from the others', '{0} 节点集群，leader 与另外两个节点断开'],
  ['old master + app-# cut off, unfenced', '旧主节点和 app-{0} 被切断，不加防护令牌'],
  ['old master + app-# cut off, fenced', '旧主节点和 app-{0} 被切断，加防护令牌'],
  ['min-replicas-to-write #, max-lag # s', 'min-replicas-to-write {0}，max-lag {1} 秒'],
  ["holder's lease revoked, unfenced", '持锁者的租约被撤销，不加防护令牌'],
  ["holder's lease revoked, fenced", '持锁者的租约被撤销，加防护令牌'],
  ["waiter's lease revoked, unfenced", '等待者的租约被撤销，不加防护令牌'],
  ["waiter's lease revoked, fenced", '等待者的租约被撤销，加防护令牌'],
  ['backend terminated after-acquire', '持锁者的后端进程在加锁后被终止'],
  ['backend terminated before-write, unfenced', '持锁者的后端进程在写入前被终止，不加防护令牌'],
  ['backend terminated before-write, fenced', '持锁者的后端进程在写入前被终止，加防护令牌'],
  ['two requests on one instance, one pool', '同一实例上的两个请求，共用一个连接池'],
];

/** The fault rows' expected notes (faults/scenarios/), after the ✓ or ✗. */
const EXPECTED: readonly Phrase[] = [
  ['next holder never: # lock_timeout after waitMs #; nothing oversold', '下一个持锁者一直拿不到锁：等满 waitMs {1} 后得到 {0} lock_timeout；没有超卖'],
  ['next holder ≈ ttl # ms (≤ #); nothing oversold', '下一个持锁者约在 ttl {0} 毫秒后拿到锁（≤ {1}）；没有超卖'],
  ['next holder ≈ session # ms (≤ #); nothing oversold', '下一个持锁者约在会话超时 {0} 毫秒后拿到锁（≤ {1}）；没有超卖'],
  [
    'no lease: the frozen holder keeps the lock, every seller gets # lock_timeout, nothing oversold',
    '没有租期：被冻结的持锁者一直占着锁，其他买家都得到 {0} lock_timeout，没有超卖',
  ],
  [
    'the lock ends with the session at once; the holder learns of it before its write (# lock_lost); nothing oversold',
    '锁随会话立即结束；持锁者在写入前得知（{0} lock_lost）；没有超卖',
  ],
  ['past its last check the holder writes the count it read: oversold = N (#)', '过了最后一次检查的持锁者写回它读到的库存：超卖 = N（{0}）'],
  ["fenced: the store refuses the holder's older token (# fenced); nothing oversold", '加了防护令牌：存储拒绝持锁者较旧的令牌（{0} fenced）；没有超卖'],
  [
    'the second request on the same instance is handed the session that holds the lock and is granted it at once; the other instance is refused; both app-# requests write what they read: oversold #',
    '同一实例上的第二个请求拿到了持有锁的那个会话，立即获得锁；另一个实例被拒绝；app-{0} 上的两个请求都写回各自读到的库存：超卖 {1}',
  ],
  [
    'the check after the wait refuses the waiter (its key is gone); the next acquirer sells; nothing oversold',
    '等待结束后的检查拒绝了等待者（它的键已经没了）；下一个抢到锁的人卖出；没有超卖',
  ],
  [
    'no check after the wait: the waiter is told it holds the lock beside the next acquirer; both write what they read: oversold #',
    '等待结束后不检查：等待者被告知它持有锁，与下一个抢到锁的人同时持锁；两人都写回各自读到的库存：超卖 {0}',
  ],
  [
    "no check after the wait, but fenced: the waiter's older revision is refused by the store (# fenced); nothing oversold",
    '等待结束后不检查，但加了防护令牌：等待者较旧的版本号被存储拒绝（{0} fenced）；没有超卖',
  ],
  [
    'held with its database session: the frozen holder keeps the lock, every seller gets # lock_timeout, nothing oversold',
    '锁随数据库会话存在：被冻结的持锁者一直占着锁，其他买家都得到 {0} lock_timeout，没有超卖',
  ],
  [
    "next holder at once: the lock ends with the holder's database session (≤ #); nothing oversold",
    '下一个持锁者立刻拿到锁：锁随持锁者的数据库会话一起结束（≤ {0}）；没有超卖',
  ],
  ['oversold = N (#): the stale write restores the count it read', '超卖 = N（{0}）：过期的写入把库存写回它当初读到的数'],
  ['# fenced: no fencing token (refused, nothing done)', '{0} fenced：发不出防护令牌（请求被拒绝，什么也没做）'],
  ['oversold #; the holder answers # fenced', '超卖 {0}；持锁者得到 {1} fenced'],
  [
    'the holder refuses honestly (# lock_lost), nothing oversold; app-# deducts again ≤ # s after the resume',
    '持锁者如实拒绝（{0} lock_lost），没有超卖；app-{1} 恢复运行后 ≤ {2} 秒内再次扣减',
  ],
  ['client # (outcome unknown), reconciled as # sale via /sales; no double deduction', '客户端得到 {0}（结果未知），经 /sales 核对为 {1} 次售出；没有重复扣减'],
  ['nginx resends the deduction: double deductions ≥ #', 'nginx 重发了扣减请求：重复扣减 ≥ {0}'],
  [
    'documented answers only; sold (reconciled) = deducted exactly; every instance deducts again ≤ # s after the restart',
    '只有文档列出的响应；售出（核对后）与实际扣减完全相等；重启后 ≤ {0} 秒内每个实例都能再次扣减',
  ],
  [
    'released by its owner: app-# sells ≤ # ms after SIGCONT and no lock key is left; the lost request # redis_unavailable, sold nothing',
    '由持锁者自己释放：app-{0} 在 SIGCONT 后 ≤ {1} 毫秒内卖出，没有留下锁 key；丢了响应的那个请求得到 {2} redis_unavailable，没有卖出',
  ],
  [
    'stuck: PTTL -#, every probe # lock_timeout for # ms, not recovered (a reset clears it)',
    '卡死：PTTL -{0}，{2} 毫秒内每次探测都得到 {1} lock_timeout，没有恢复（重置才能清掉）',
  ],
  [
    'heals: PTTL > # at the crash, the next request sells ≤ ttl # ms + # after the kill',
    '能自愈：宕机时 PTTL > {0}，进程被杀后 ≤ ttl {1} 毫秒 + {2} 内下一个请求卖出',
  ],
  ["A's DEL removes B's lock, C enters while B works: oversold #", 'A 的 DEL 删掉了 B 的锁，B 还在干活时 C 就进来了：超卖 {0}'],
  ["the compare-and-delete leaves B's lock, C waits for B: nothing oversold", '先判断再删除，B 的锁留着，C 等 B 释放：没有超卖'],
  [
    "B reads A's expiry as past and GETSETs a live lock; A's blind DEL frees it for C: oversold ≥ #",
    'B 以为 A 的过期时刻已过，用 GETSET 抢走了一把还活着的锁；A 不加判断的 DEL 又把锁放给了 C：超卖 ≥ {0}',
  ],
  [
    "Redis expires the lease, not B's clock: B waits (# lock_timeout), nothing oversold",
    '租期由 Redis 判定过期，不看 B 的时钟：B 只能等待（{0} lock_timeout），没有超卖',
  ],
  ['a deadlock: one #, one # deadlock; one unit deducted, nothing twice', '死锁：一个 {0}，一个 {1} deadlock；只扣减了一件，没有重复扣减'],
  ["B's read queues behind A's lock, then both sell: # deducted", 'B 的读取排在 A 的锁后面，之后两个都卖出：扣减 {0} 件'],
  ['every parked waiter wakes at each hand-off: W, W−#, …, #', '每次交接都唤醒所有挂起的等待者：W、W−{0}、…、{1}'],
  ['one waiter wakes at each hand-off: its successor', '每次交接只唤醒一个等待者：它的后继'],
  [
    "B gets # of # while A is within its validity: # holders, # unit oversold (no fencing token to refuse A's or B's write)",
    'A 还在有效时间内，B 也拿到了 {1} 个中的 {0} 个：同时有 {2} 个持锁者，超卖 {3} 件（没有防护令牌来拒绝 A 或 B 的写入）',
  ],
  ['B gets at most # of # and is refused (a #): # holder, nothing oversold', 'B 最多拿到 {1} 个中的 {0} 个，被拒绝（{2}）：只有 {3} 个持锁者，没有超卖'],
  ['nobody wins within # ms: the same minorities every round', '{0} 毫秒内谁也没拿到锁：每一轮都是同样的少数派'],
  ['one contender wins (≤ # ms)', '一个竞争者胜出（≤ {0} 毫秒）'],
  ['the next waiter gets the lock at the release (≤ # ms)', '锁一释放，下一个等待者就拿到（≤ {0} 毫秒）'],
  [
    "the next waiter waits out the dead waiters' time in line (# ms, less what had run before the release), then sells",
    '下一个等待者要等已死的等待者在队列中的时间耗尽（{0} 毫秒，减去释放前已过去的时间），然后卖出',
  ],
  ['the lock is lost in the failover (§#.#): # holders, # unit oversold', '锁在主从切换中丢失（§{0}.{1}）：同时有 {2} 个持锁者，超卖 {3} 件'],
  ['one holder: B is refused (# lock_timeout), nothing oversold', '只有一个持锁者：B 被拒绝（{0} lock_timeout），没有超卖'],
  ['B gets # of # too: # holders, # unit oversold', 'B 也拿到了 {1} 个中的 {0} 个：同时有 {2} 个持锁者，超卖 {3} 件'],
  ['B is refused (a #): # holder, nothing oversold', 'B 被拒绝（{0}）：只有 {1} 个持锁者，没有超卖'],
  ['exact throughout; a new leader and sales again ≤ # s after the kill', '始终准确；leader 被杀后 ≤ {0} 秒内选出新 leader，恢复售出'],
  ['exact throughout; a new leader and sales again ≤ # s after the leader is killed', '始终准确；leader 被杀后 ≤ {0} 秒内选出新 leader，恢复售出'],
  [
    'exact throughout; a new leader and sales again ≤ # s after the leader is cut off from the other two nodes',
    '始终准确；leader 与另外两个节点断开后 ≤ {0} 秒内选出新 leader，恢复售出',
  ],
  [
    'oversold = N (#): cut off, the holder cannot tell its claim has gone and writes the count it read',
    '超卖 = N（{0}）：被切断的持锁者不知道自己的锁已经没了，把读到的库存写了回去',
  ],
  [
    'oversold #: its renewal fails or its connection drops, it takes its claim as lost and refuses its own write (# lock_lost)',
    '超卖 {0}：续期失败或连接断开，它把锁当作已经丢了，拒绝自己的写入（{1} lock_lost）',
  ],
  ['oversold #; the holder refuses its own write (# lock_lost) or is fenced', '超卖 {0}；持锁者拒绝自己的写入（{1} lock_lost），或被防护令牌挡下'],
  [
    'the side with # masters sells all #; the side with # is refused, every request # redlock_unavailable; nothing oversold',
    '拥有 {0} 个主节点的一边卖出全部 {1} 件；只有 {2} 个的一边被拒绝，每个请求都得到 {3} redlock_unavailable；没有超卖',
  ],
  ['no side has a majority: nothing sold, every request # redlock_unavailable', '没有哪一边占多数：一件也没卖，每个请求都得到 {0} redlock_unavailable'],
  [
    'the holder answers ≤ # s (# outcome_unknown or a refusal); the others are refused until MariaDB ends the stranded session, then sell N (#) ≤ # s after the cut; /sales settles the holder: nothing oversold or twice',
    '持锁者在 ≤ {0} 秒内作答（{1} outcome_unknown 或拒绝）；MariaDB 结束那个被困住的会话之前，其他实例都被拒绝，之后在切断后 ≤ {3} 秒内卖出 N（{2}）件；/sales 查明持锁者的结果：没有超卖，也没有重复扣减',
  ],
  [
    "oversold #: its lock is in the stock's own database, so the cut takes the stock too: it reads and writes nothing and is refused (a #) ≤ # s; its lease (ttlMs) frees the lock, and the others sell N (#)",
    '超卖 {0}：锁就在库存所在的数据库里，切断了锁也就切断了库存：它什么也读不到、什么也写不了，在 ≤ {2} 秒内被拒绝（{1}）；租期（ttlMs）到期，锁随之释放，其他实例卖出 N（{3}）件',
  ],
  [
    "the request in flight: unanswered at the lab's # s (nginx's bound: proxy_read_timeout # s), never resent, /sales settles it as # sale; then N (#) through nginx, each answered ≤ # s (#, or # at proxy_connect_timeout, nothing sold); nothing oversold or twice",
    '在途的那个请求：到实验室给的 {0} 秒仍未得到响应（nginx 的上限是 proxy_read_timeout {1} 秒），从未被重发，/sales 核对为 {2} 次售出；之后经 nginx 再发 N（{3}）个请求，每个都在 ≤ {4} 秒内得到响应（{5}，或到 proxy_connect_timeout 时返回 {6}，什么也没卖出）；没有超卖，也没有重复扣减',
  ],
  [
    'two masters grant the lock: # holders at once, # unit oversold; healed, Sentinel demotes the old master and its grant is gone',
    '两个主节点都发出了锁：同时有 {0} 个持锁者，超卖 {1} 件；恢复之后，Sentinel 把旧主节点降为从节点，它发出的锁随之消失',
  ],
  [
    "two holders at once with the same token (each master counts on from the one replicated value); B claimed the stock with it first, A's claim is refused (# fenced): B and the warm-up sale sold, nothing oversold",
    '两个持锁者同时拿着同一个令牌（两个主节点都从同一个复制过来的值往上数）；B 先用它占住了库存，A 的占用被拒绝（{0} fenced）：B 和预热的那一单卖出，没有超卖',
  ],
  [
    'the old master stops accepting writes ≤ # ms after the cut (recover ms: the window); then app-# is refused with a documented #, not granted; app-# sells on the new master; nothing oversold',
    '旧主节点在切断后 ≤ {0} 毫秒内停止接受写入（恢复毫秒：就是这段窗口）；之后 app-{1} 得到文档列出的 {2} 拒绝，而不是拿到锁；app-{3} 在新主节点上卖出；没有超卖',
  ],
];

/** Every phrase, for the test that each keeps its figures. */
export const PHRASES: readonly Phrase[] = [...VARIANTS, ...EXPECTED];

const FIGURE = /\d+/g;

/** The Chinese of `text` from a phrase list, its figures put back; undefined when no phrase fits. */
function fromPhrases(text: string, phrases: readonly Phrase[]): string | undefined {
  const figures = text.match(FIGURE) ?? [];
  const shape = text.replace(FIGURE, '#');
  const phrase = phrases.find(([en]) => en === shape);
  return phrase?.[1].replace(/\{(\d+)\}/g, (_, i: string) => figures[Number(i)] ?? '');
}

const VARIANT = FAULT_COLUMNS.indexOf('variant');
const EXPECTED_COLUMN = FAULT_COLUMNS.indexOf('expected');

/** A fault row's cells (faults/report/cells.ts's rowCells) in Chinese. */
export function zhFaultCells(cells: readonly string[]): string[] {
  return cells.map((cell, i) => {
    if (i === VARIANT) return fromPhrases(cell, VARIANTS) ?? cell;
    if (i === EXPECTED_COLUMN) {
      const mark = /^([✓✗]) (.*)$/.exec(cell);
      const note = mark ? fromPhrases(mark[2] as string, EXPECTED) : undefined;
      return mark && note !== undefined ? `${mark[1]} ${note}` : cell;
    }
    return zhCell(cell);
  });
}
