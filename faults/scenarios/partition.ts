// partition: the holder cut from its lock service, not from MySQL (the hosts topology). The holder
// (app-0) acquires, and the lab freezes it right there (pause=after-acquire) only to sequence the
// cut: while it is stopped, its links to the lock's server are cut both ways, then it runs on. It
// reads the stock and works for HOLDER_WORK_MS, unable to renew or to hear that its lease or
// session has gone. Meanwhile the lease ends on the server, app-1 and app-2 take the lock and sell
// N units. The links heal only after the holder has answered. A holder that writes then writes the
// count it read (oversold = N); a fenced one is refused; a lock that learns it lost its claim
// refuses the write itself (503 lock_lost). mysql-lock-table's lock lives in the stock's own
// database: cut from its lock, the holder is cut from the stock too, and can only be refused.
import { createConnection, type Connection } from 'mysql2/promise';
import { isRefusal, UNKNOWN_OUTCOME } from '../../src/http/answers.js';
import { complete, cut } from '../../src/net/grudge.js';
import { pollUntil } from '../../src/time.js';
import { runCase, type Case, type Verdict } from '../case.js';
import { instance, type Instance } from '../cluster-ops.js';
import { outcomeKey, type CheckParams, type Sent } from '../client.js';
import { answersText, FREEZE_TIMEOUT_MS, freezeHolder, holderText, sellThrough } from '../holder.js';
import { labNetwork } from '../lab-network.js';
import { resume } from '../process-state.js';
import { isSafe, type FaultRow } from '../row.js';
import type { FaultContext, Scenario } from '../scenario.js';

/** The lock service each strategy's holder is cut from, by the cluster's server name. */
export const LOCK_SERVICE: Readonly<Record<string, string>> = {
  'redis-owned': 'redis',
  'redis-watchdog': 'redis',
  'redis-pubsub': 'redis',
  'zk-watch': 'zookeeper',
  'etcd-lock': 'etcd',
  // The lock table is in the stock's own database: the one cut takes both.
  'mysql-lock-table': 'mysql',
};

/** What each holder does, cut off, when its work is over: the row's expectation. */
type HolderFate =
  /** it cannot tell its claim is gone and writes */
  | 'writes'
  /** it learns its claim is gone (a failed renewal, a lost connection) and refuses its own write */
  | 'refuses'
  /** its lock service is the stock's own store: cut from one, it cannot read or write the other either */
  | 'cut from the stock';

export const HOLDER_FATE: Readonly<Record<string, HolderFate>> = {
  'redis-owned': 'writes',
  'redis-watchdog': 'refuses',
  'redis-pubsub': 'writes',
  // It takes a lost connection as a lost lock (Curator's SUSPENDED), long before the session expires.
  'zk-watch': 'refuses',
  // Its keep-alives get no answer: its lease clock runs out at ttlMs and takes the lock as lost.
  'etcd-lock': 'refuses',
  'mysql-lock-table': 'cut from the stock',
};

const HOLDER_TTL_MS = 1_000;
/**
 * Long enough for the lease (or the 2 s ZooKeeper session) to end and N sales to be made before it:
 * the sellers were done ≈ 1.1 s (Redis) and ≈ 2.6 s (ZooKeeper) after the cut (2026-11-25, N = 20).
 */
const HOLDER_WORK_MS = 6_000;
const SELLER_PARAMS = { ttlMs: 5_000, waitMs: 10_000 };

export type Fencing = 'unfenced' | 'fenced';

/**
 * A holder cut from the stock's own store answers within this: two statement bounds (10 s each: its
 * read or claim, then its release) plus room for a loaded machine. Observed ≈ 20.2 s.
 */
export const CUT_FROM_STOCK_ANSWER_BOUND_MS = 30_000;

/** The expectation of a holder cut from the stock's own store (a row's note, rendered in both languages). */
export function cutFromStockExpected(n: number): string {
  return (
    `oversold 0: its lock is in the stock's own database, so the cut takes the stock too: it reads and writes nothing and is refused (a 503) ≤ ${CUT_FROM_STOCK_ANSWER_BOUND_MS / 1000} s; ` +
    `its lease (ttlMs) frees the lock, and the others sell N (${n})`
  );
}

/**
 * The holder-cut variants each strategy runs. A holder cut from the stock's own store never reaches
 * it, to claim or to write: fenced=1 would change nothing, so it runs once.
 */
export function holderCutFencings(strategy: string): readonly Fencing[] {
  return HOLDER_FATE[strategy] === 'cut from the stock' ? ['unfenced'] : ['unfenced', 'fenced'];
}

export async function holderCutCase(ctx: FaultContext, strategy: string, fencing: Fencing): Promise<FaultRow> {
  const n = ctx.sizes.sell;
  const key = { scenario: 'partition', strategy, variant: `holder cut from ${LOCK_SERVICE[strategy]}, ${fencing}`, store: 'mysql' as const };
  const net = labNetwork(ctx, 'partition');
  return runCase(ctx, key, ctx.sizes.initial, async (c): Promise<Verdict> => {
    const [holderAt, ...sellers] = [0, 1, 2].map((i) => instance(ctx.cluster, i));
    const service = LOCK_SERVICE[strategy] as string;
    const fence: CheckParams = fencing === 'fenced' ? { fenced: 1 } : {};
    const frozen = await freezeHolder(c, holderAt!, { ...fence, pause: 'after-acquire', ttlMs: HOLDER_TTL_MS, workMs: HOLDER_WORK_MS });
    if (!frozen.frozen) return { expected: 'the holder stops at pause=after-acquire', holds: () => false, details: [holderText(frozen.answer)] };
    let holderDone = false;
    void frozen.answer.then(() => (holderDone = true));
    const cutAt = await net.partition(cut([holderAt!.server.name], [service]));
    const t0 = Date.now();
    try {
      resume(frozen.pid);
      const sold = await sellThrough(c, sellers, n, { ...fence, ...SELLER_PARAMS });
      const soldMs = Date.now() - t0;
      // The order this case is about: every sale made while the cut-off holder still worked.
      const inOrder = !holderDone;
      const holder = await frozen.answer;
      const holderKey = outcomeKey(holder.outcome);
      const details = [
        `cut at ${cutAt.at}: ${cutAt.text}`,
        holderText(holder),
        `sellers (app-1, app-2): ${answersText(sold)}, the last ${soldMs} ms after the cut${inOrder ? '' : ' — AFTER the holder had answered: the case did not show what it is for'}`,
      ];
      const soldAll = (m: { byRole: Record<string, Record<string, number>> }) => (m.byRole.sell?.['200'] ?? 0) === n;
      if (HOLDER_FATE[strategy] === 'cut from the stock') {
        // It stopped before any statement of its deduction: each is sent into the cut and given up
        // on past MYSQL_STATEMENT_TIMEOUT_MS, then its release too, so it answers a refusal, no hang.
        return {
          expected: cutFromStockExpected(n),
          details,
          facts: { holderMs: holder.ms },
          holds: (m) => inOrder && isSafe(m) && soldAll(m) && isRefusal(holderKey) && holder.ms <= CUT_FROM_STOCK_ANSWER_BOUND_MS,
        };
      }
      if (fencing === 'fenced') {
        return {
          expected:
            HOLDER_FATE[strategy] === 'refuses'
              ? 'oversold 0; the holder refuses its own write (503 lock_lost) or is fenced'
              : 'oversold 0; the holder answers 503 fenced',
          details,
          holds: (m) =>
            inOrder && isSafe(m) && soldAll(m) && (holderKey === '503 fenced' || (HOLDER_FATE[strategy] === 'refuses' && holderKey === '503 lock_lost')),
        };
      }
      if (HOLDER_FATE[strategy] === 'refuses') {
        return {
          expected: 'oversold 0: its renewal fails or its connection drops, it takes its claim as lost and refuses its own write (503 lock_lost)',
          details,
          holds: (m) => inOrder && isSafe(m) && soldAll(m) && holderKey === '503 lock_lost',
        };
      }
      return {
        expected: `oversold = N (${n}): cut off, the holder cannot tell its claim has gone and writes the count it read`,
        details,
        holds: (m) => inOrder && soldAll(m) && m.oversold === n && holderKey === '200' && m.undocumented === 0,
      };
    } finally {
      await frozen.answer;
      await net.heal();
    }
  });
}

/** How the five RedLock masters and the instances split: each side an instance and its masters. */
export const REDLOCK_SPLITS = {
  '3|2': [
    [0, 1, 2],
    [3, 4],
  ],
  '2|2|1': [[0, 1], [2, 3], [4]],
} as const satisfies Record<string, readonly (readonly number[])[]>;
export type RedlockSplit = keyof typeof REDLOCK_SPLITS;

/** Requests each side sends, one after the other, all sides at once. */
const SPLIT_REQUESTS = 3;

/**
 * RedLock's majority split: instance i and the masters of side i on one side of a partition (MySQL,
 * nginx and the rest reach everyone). A side with three of the five masters may hold the lock; a
 * side with fewer must be refused, and named so (503 redlock_unavailable), not left waiting.
 */
export async function redlockSplitCase(ctx: FaultContext, split: RedlockSplit): Promise<FaultRow> {
  const key = { scenario: 'partition', strategy: 'redlock', variant: `masters split ${split}`, store: 'mysql' as const };
  const net = labNetwork(ctx, 'partition');
  return runCase(ctx, key, ctx.sizes.initial, async (c): Promise<Verdict> => {
    const sides = REDLOCK_SPLITS[split].map((masters, i) => ({ at: instance(ctx.cluster, i), masters }));
    const grudge = complete(sides.map((s) => [s.at.server.name, ...s.masters.map((m) => `redlock-${m}`)]));
    const cutAt = await net.partition(grudge);
    try {
      const answers = await Promise.all(
        sides.map(async (side) => {
          const sent = [];
          for (let k = 0; k < SPLIT_REQUESTS; k++) sent.push(await c.send(side.at, `side-${side.masters.length}`, { waitMs: 3_000 }));
          return { side, sent };
        }),
      );
      const details = [
        `cut at ${cutAt.at}: ${cutAt.text}`,
        ...answers.map((a) => `${a.side.at.via} with masters ${a.side.masters.join(',')}: ${answersText(a.sent)}`),
      ];
      const majority = answers.filter((a) => a.side.masters.length >= 3);
      const minority = answers.filter((a) => a.side.masters.length < 3);
      const allKey = (sent: readonly { outcome: Parameters<typeof outcomeKey>[0] }[], want: string) => sent.every((s) => outcomeKey(s.outcome) === want);
      return {
        expected:
          majority.length > 0
            ? `the side with 3 masters sells all ${SPLIT_REQUESTS}; the side with 2 is refused, every request 503 redlock_unavailable; nothing oversold`
            : `no side has a majority: nothing sold, every request 503 redlock_unavailable`,
        details,
        holds: (m) =>
          isSafe(m) &&
          m.deducted === majority.length * SPLIT_REQUESTS &&
          majority.every((a) => allKey(a.sent, '200')) &&
          minority.every((a) => allKey(a.sent, '503 redlock_unavailable')),
      };
    } finally {
      await net.heal();
    }
  });
}

// ── an instance cut from MySQL mid-transaction ──────────────────────────────────────────────────
// app-0 is cut from MySQL with its transaction open and the row lock held on the server, its last
// statement's answer lost. Its request must still answer, within a bound: the instance gives a
// statement up past MYSQL_STATEMENT_TIMEOUT_MS and destroys its connection, answering 503
// outcome_unknown if a COMMIT was sent, else a refusal. On the server its session keeps the row lock
// until MariaDB ends it (idle inside its transaction for 30 s, src/cluster/mariadb.ts) and rolls it
// back; the others are refused meanwhile, by their own bounds, then sell. GET /sales settles the
// holder's fate.

/** The strategies of this variant. */
export const MYSQL_CUT_STRATEGIES = ['sql-for-update', 'sql-update'] as const;
export type MysqlCutStrategy = (typeof MYSQL_CUT_STRATEGIES)[number];

/** The cut holder answers within this: the statement bound (10 s) plus room for a loaded machine. */
export const MYSQL_CUT_ANSWER_BOUND_MS = 25_000;
/** The others sell again within this after the cut: MariaDB's 30 s idle-in-transaction bound plus room. */
export const MYSQL_CUT_LOCK_FREE_BOUND_MS = 60_000;
/** The others' lock wait (sql-for-update): short, so each waits a little and is refused while the lock is stranded. */
const MYSQL_CUT_SELLER_PARAMS = { waitMs: 2_000 };

/** The lab's own session, from the machine (no cut touches it): it holds the row lock and watches the instances' statements. */
async function labSession(ctx: FaultContext): Promise<Connection> {
  const { host, port, user, password, database } = ctx.cluster.info.mysql;
  return createConnection({ host, port, user, password, database, connectTimeout: 5_000 });
}

/** Statements from `address` running now whose text is like `like` (one waiting for a row lock stays running). */
async function runningFrom(lab: Connection, address: string, like: string): Promise<number> {
  const [rows] = await lab.query("SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE COMMAND = 'Query' AND HOST LIKE ? AND INFO LIKE ?", [
    `${address}:%`,
    like,
  ]);
  return Number((rows as { n: unknown }[])[0]?.n ?? 0);
}

/**
 * Sells `units` through `through`, one request at a time, alternating, until they are sold or
 * `boundMs` has passed since `t0`. The first 200 comes once the stranded row lock is free.
 */
async function sellOnceFree(
  c: Case,
  through: readonly Instance[],
  units: number,
  t0: number,
  boundMs: number,
): Promise<{ sent: Sent[]; freeMs: number | null }> {
  const sent: Sent[] = [];
  let sold = 0;
  let freeMs: number | null = null;
  for (let k = 0; sold < units && Date.now() - t0 < boundMs; k++) {
    const s = await c.send(through[k % through.length] as Instance, 'sell', MYSQL_CUT_SELLER_PARAMS);
    sent.push(s);
    if (outcomeKey(s.outcome) !== '200') continue;
    sold++;
    freeMs ??= Date.now() - t0;
  }
  return { sent, freeMs };
}

/** The expectation of an instance cut from MySQL mid-transaction (a row's note, rendered in both languages). */
export function mysqlCutExpected(n: number): string {
  return (
    `the holder answers ≤ ${MYSQL_CUT_ANSWER_BOUND_MS / 1000} s (503 outcome_unknown or a refusal); the others are refused until MariaDB ends the stranded session, ` +
    `then sell N (${n}) ≤ ${MYSQL_CUT_LOCK_FREE_BOUND_MS / 1000} s after the cut; /sales settles the holder: nothing oversold or twice`
  );
}

export async function mysqlCutCase(ctx: FaultContext, strategy: MysqlCutStrategy): Promise<FaultRow> {
  const n = ctx.sizes.sell;
  const key = { scenario: 'partition', strategy, variant: 'instance cut from MySQL mid-transaction', store: 'mysql' as const };
  const net = labNetwork(ctx, 'partition');
  return runCase(ctx, key, ctx.sizes.initial, async (c): Promise<Verdict> => {
    const [holderAt, ...sellers] = [0, 1, 2].map((i) => instance(ctx.cluster, i)) as [Instance, Instance, Instance];
    const holderAddress = net.layout.hosts.find((h) => h.name === holderAt.server.name)?.address ?? '';
    const grudge = cut([holderAt.server.name], ['mysql']);
    const lab = await labSession(ctx);
    let holder: Promise<Sent> | undefined;
    let healed = false;
    try {
      let cutAt: Awaited<ReturnType<typeof net.partition>>;
      if (strategy === 'sql-for-update') {
        // Stopped after its locking read, inside the transaction: the row lock held, its UPDATE unsent.
        const frozen = await freezeHolder(c, holderAt, { pause: 'after-read' });
        if (!frozen.frozen) return { expected: 'the holder stops at pause=after-read', holds: () => false, details: [holderText(frozen.answer)] };
        holder = frozen.answer;
        cutAt = await net.partition(grudge);
        resume(frozen.pid); // its UPDATE goes into the cut and is never answered
      } else {
        // sql-update has no pause point: the lab holds the row lock, so app-0's UPDATE (in the
        // transaction that records the sale) waits on the server; cut, then let it run there.
        await lab.query('START TRANSACTION');
        await lab.query("SELECT `count` FROM db_stock WHERE product_code = '1001' AND stock_code = '001' FOR UPDATE");
        holder = c.send(holderAt, 'holder', {});
        const waiting = await pollUntil(async () => (await runningFrom(lab, holderAddress, 'UPDATE%db_stock%')) === 1, FREEZE_TIMEOUT_MS, 20);
        if (!waiting) return { expected: "the holder's UPDATE waits for the lab's row lock", holds: () => false, details: [holderText(await holder)] };
        cutAt = await net.partition(grudge);
        await lab.query('ROLLBACK'); // app-0's UPDATE runs and holds the row lock; its answer is lost
      }
      const t0 = Date.now();
      const sold = await sellOnceFree(c, sellers, n, t0, MYSQL_CUT_LOCK_FREE_BOUND_MS);
      const answered = await holder;
      await net.heal();
      healed = true;
      // The cut instance's pool after the heal: the abandoned connection is gone, the others serve.
      const after = await c.send(holderAt, 'after', {});
      const holderKey = outcomeKey(answered.outcome);
      const holderOk = holderKey === UNKNOWN_OUTCOME || isRefusal(holderKey);
      return {
        expected: mysqlCutExpected(n),
        details: [
          `cut at ${cutAt.at}: ${cutAt.text}`,
          holderText(answered),
          `the others (app-1, app-2): ${answersText(sold.sent)}; the first sale ${sold.freeMs === null ? `not within ${MYSQL_CUT_LOCK_FREE_BOUND_MS} ms` : `${sold.freeMs} ms after the cut`}`,
          holderText(after, 'app-0 after the heal'),
        ],
        facts: { holderMs: answered.ms, lockFreeMs: sold.freeMs ?? -1, refusedMeanwhile: sold.sent.filter((s) => outcomeKey(s.outcome) !== '200').length },
        recoverMs: sold.freeMs,
        recoverBoundMs: MYSQL_CUT_LOCK_FREE_BOUND_MS,
        holds: (m) =>
          isSafe(m) &&
          holderOk &&
          answered.ms <= MYSQL_CUT_ANSWER_BOUND_MS &&
          sold.freeMs !== null &&
          (m.byRole.sell?.['200'] ?? 0) === n &&
          outcomeKey(after.outcome) === '200',
      };
    } finally {
      if (holder) await holder;
      if (!healed) await net.heal();
      await lab.end().catch(() => undefined); // ends the lab's transaction too, if a step above failed
    }
  });
}

export const partition: Scenario = {
  name: 'partition',
  topology: 'hosts',
  family: 'partition',
  description:
    'The hosts topology (each server in a network namespace of its own). The holder (app-0) acquires and is stopped right there (pause=after-acquire) only so the cut lands while it holds: ' +
    `its links to the lock's server (Redis or ZooKeeper; the lock table's, below) are cut both ways (iptables DROP inside both namespaces), then it runs on: it reads the stock from MySQL, which it still reaches, and works ${HOLDER_WORK_MS} ms with ttlMs ${HOLDER_TTL_MS} (ZooKeeper: its session). ` +
    'Meanwhile the lease or session ends on the server and app-1 and app-2 sell N units one at a time. The links heal once the holder has answered. ' +
    `RedLock: the masters split 3|2 and 2|2|1, each side with one instance (MySQL reaches all); each side sends ${SPLIT_REQUESTS} requests at once with the others. At most the side with a majority sells; a side without one is refused, 503 redlock_unavailable. ` +
    "A holder that cannot tell its claim is gone writes the count it read (oversold = N); with fenced=1 the store refuses it (503 fenced); a lock that notices (the watchdog's failed renewal, ZooKeeper's lost connection, taken as lost as Curator takes SUSPENDED) refuses its own write (503 lock_lost). " +
    "mysql-lock-table keeps its lock in the stock's own database, so no cut separates the holder from its lock but not from the stock: cut from MySQL, it can neither read nor write (each statement given up on past its 10 s bound, its release too), " +
    `and answers a refusal within ${CUT_FROM_STOCK_ANSWER_BOUND_MS / 1000} s; its lease ends by the database's clock and the others sell N. It runs unfenced only: fenced=1 would change nothing, the holder never reaches the stock to claim it. ` +
    'An instance cut from MySQL mid-transaction (sql-for-update stopped after its locking read, sql-update with its UPDATE run while the lab held the row): ' +
    `its request answers within ${MYSQL_CUT_ANSWER_BOUND_MS / 1000} s (503 outcome_unknown, or a refusal when its COMMIT was never sent), never a hang; its session keeps the row lock until MariaDB ends it (30 s idle in a transaction), the others are refused meanwhile, then sell N; GET /sales settles the holder.`,
  async run(ctx) {
    const rows: FaultRow[] = [];
    for (const strategy of Object.keys(LOCK_SERVICE).filter(ctx.wants)) {
      for (const fencing of holderCutFencings(strategy)) rows.push(await holderCutCase(ctx, strategy, fencing));
    }
    if (ctx.wants('redlock')) for (const split of Object.keys(REDLOCK_SPLITS) as RedlockSplit[]) rows.push(await redlockSplitCase(ctx, split));
    for (const strategy of MYSQL_CUT_STRATEGIES.filter(ctx.wants)) rows.push(await mysqlCutCase(ctx, strategy));
    return rows;
  },
};
