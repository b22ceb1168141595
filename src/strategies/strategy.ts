import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import type { ServiceConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { FenceSource } from '../fencing.js';
import type { HoldRecord } from '../locks/hold-record.js';
import { LOCK_PAUSE_POINTS, type Lease, type LeaseExtras, type Lock, type LockOptions, type LockWithExpiry } from '../locks/lock.js';
import type { Held, Scope } from '../locks/scope.js';
import type { MysqlStock } from '../stock/mysql-stock.js';
import type { PostgresStock } from '../stock/postgres-stock.js';
import type { RedisStock } from '../stock/redis-stock.js';
import type { StoreKind } from '../stock/store.js';
import type { Bilingual } from '../lang.js';

export type Outcome = 'exact' | 'oversells';
export type FamilyName = 'baseline' | 'sql' | 'redis' | 'redlock' | 'zookeeper' | 'mysql-lock' | 'etcd' | 'postgres' | 'library';

/** What a distributed lock strategy does under each fault of `npm run faults` (faults/), as measured there. */
export interface FaultOutcomes {
  /**
   * Killed while holding: when another instance gets the lock. PostgreSQL's advisory locks end with
   * the holder's database session: at once when its process dies (the kernel closes its sockets).
   */
  holderCrash: 'never' | 'after ttlMs' | 'after the session timeout' | 'at once, with its database session';
  /** Paused past its lease after its last "still held?" check, then resumed: what its stale write does. */
  holderPause: Outcome;
  /** The same with fenced=1; absent when the lock issues no fencing tokens. */
  holderPauseFenced?: Outcome;
  /**
   * An acquire applied by the server whose reply was lost: what becomes of the lock it took. Absent
   * where the lock does not say (PostgreSQL's advisory locks: the lab loses no database reply).
   */
  lostReply?: 'released by its owner' | 'expires after ttlMs';
}

/**
 * What the fault lab builds its cases from, beyond the outcomes (faults/locks.ts reads them from
 * GET /strategies): facts of the lock that a case's timing or its list of subjects depends on.
 */
export interface FaultLabFacts {
  /** Its leases are whole seconds, ttlMs rounded up, at least 1 s (etcd's: src/locks/etcd/lease.ts). */
  wholeSecondLeases?: true;
  /**
   * The lost-reply scenario runs it: a lock on the one main Redis whose applied acquire draws a token
   * from the Redis counter (how the lab sees it applied) and whose owner gives a lost grant back. The
   * course's flawed steps on the same server are left to course-flaws.
   */
  lostReplyCase?: true;
}

/** What one GET /check/lock asks of a strategy, already validated. */
export interface DeductRequest {
  /** Simulated business time inside the critical section, between the read and the write. */
  workMs: number;
  store: StoreKind;
  lock: LockOptions;
  /** Who holds the locks this request takes: a token of its own (see locks/owner.ts). */
  owner: string;
  /** Check the lock's fencing token on the store (fenced=1); only for strategies with `guard.fencing`. */
  fenced: boolean;
  /** The client's X-Request-Id, recorded with the write (see StockStore.sales). */
  requestId?: string;
  /** The fault lab's pause points (FAULT_INJECTION=1 only); lock strategies call them. */
  hooks?: FaultHooks;
  /** Aborted when the request is given up (its client left, the service is draining): nothing more may be written. */
  signal?: AbortSignal;
  /** Where a lock strategy notes its wait, hold, write and fencing token (the answer's Server-Timing). */
  hold?: HoldRecord;
}

/**
 * The pause points a strategy may have of its own, beyond the two every lock strategy has: its
 * lock's inner steps (LOCK_PAUSE_POINTS), and `after-read`, after a deduction's locking read and
 * before its write (sql-share-mode's shared lock, held and about to be upgraded).
 */
export const STEP_PAUSE_POINTS = [...LOCK_PAUSE_POINTS, 'after-read'] as const;
export type StepPausePoint = (typeof STEP_PAUSE_POINTS)[number];

/** Where a strategy lets the fault lab stop the process (see http/fault-hooks.ts). */
export interface FaultHooks {
  /** Right after the lock is acquired. */
  afterAcquire?(): void;
  /** After the last "still held?" check (and the fence's claim and the read), right before the write. */
  beforeWrite?(): void;
  /** At one of the strategy's own `pausePoints`; stops only at the one the request named. */
  at?(point: StepPausePoint): void;
}

export interface DeductResult {
  outcome: 'deducted' | 'sold_out';
  /** Set when something went wrong after the deduction committed (e.g. the lock expired first). */
  warning?: string;
  /**
   * A fair lock's place in line (redis-fair): `queued`, the ticket drawn on joining its queue, and
   * `granted`, the grant's fencing token, which grows with every grant. First come, first served
   * means both sort the deductions alike.
   */
  ticket?: { queued: number; granted: number };
}

/** Where the course teaches a strategy (docs/course.md's § keys), or that it goes beyond the course. */
export type CourseSection = `§${string}` | 'beyond the course';

/** A section's label in each language: the § keys read alike, "beyond the course" is words. */
export function courseLabel(course: CourseSection): Bilingual {
  return course === 'beyond the course' ? { en: course, zh: '课程之外' } : { en: course, zh: course };
}

/**
 * What the course shows, and what the tests assert. `workOverTtl`, for locks with a lease: the
 * outcome (on one instance or three) once the work inside the lock outlasts the lease (workMs > ttlMs).
 */
export interface Expected {
  oneInstance: Outcome;
  threeInstances: Outcome;
  workOverTtl?: Outcome;
  note?: string;
  faults?: FaultOutcomes;
}

export interface Strategy {
  name: string;
  family: FamilyName;
  course: CourseSection;
  /** What it does, in each language (GET /strategies answers in one; the live page shows the page's). */
  description: Bilingual;
  expected: Expected;
  /** Stores it can deduct from; the first is the default. */
  stores: readonly [StoreKind, ...StoreKind[]];
  /**
   * The SQL statements one deduction sends, in order, as the driver gets them (`?` for each
   * parameter); for a strategy that can use either store, those it sends with store=mysql.
   * Absent when it sends none (the Redis-only strategies).
   */
  sql?: readonly string[];
  /** The same with fenced=1, for the strategies whose lock issues fencing tokens. */
  sqlFenced?: readonly string[];
  /**
   * Present when the deduction runs under a lock (the fault lab's pause points apply); `fencing`
   * names the counter its tokens come from, when the lock issues them (fenced=1 applies).
   */
  guard?: { fencing?: FenceSource };
  /** Its own pause points (pause=…), beyond a lock strategy's after-acquire and before-write; absent when none. */
  pausePoints?: readonly StepPausePoint[];
  /** What the fault lab builds its cases from, for the lock strategies it measures; absent when none applies. */
  faultLab?: FaultLabFacts;
  deduct(req: DeductRequest): Promise<DeductResult>;
}

/** What every strategy declares about itself. */
interface Declared {
  name: string;
  family: FamilyName;
  course: CourseSection;
  /** What it does, written for a reader of each language, in the course's own terms. */
  description: Bilingual;
  /** The fault outcomes are never declared: a lock strategy's follow from its lock (see declare.ts). */
  expected: Omit<Expected, 'faults'>;
}

/** A strategy that deducts its own way: no lock, or what the store itself serializes (a row lock, WATCH, a script). */
export interface OwnDeduction extends Declared {
  stores: Strategy['stores'];
  sql?: readonly string[];
  /** Where its deduction calls `hooks.at`. */
  pausePoints?: readonly StepPausePoint[];
  deduct(req: DeductRequest): Promise<DeductResult>;
}

/** A strategy whose deduction is the shared read-then-write under `lock`, on either store (see guarded.ts). */
interface LockedBase<L extends Lease> extends Declared {
  lock: Lock<L>;
  /** How the deduction holds the lock: withLock (the default), or withLockReentered for the reentrant strategies. */
  scope?: Scope;
  /** What the lock itself sends to MySQL before and after the deduction (the lock table's statements). */
  lockSql?: { acquire: readonly string[]; release: readonly string[] };
  /** What the answer carries from the grant (redis-fair: its place in line), read right after the acquire. */
  answer?(held: Held<LeaseExtras<L>>): Promise<Pick<DeductResult, 'ticket'>>;
}

/**
 * `faultLab`: the fault lab (faults/) measures it, so GET /strategies declares its `expected.faults`,
 * which follow from how its lock's grants end: its lock must say so (LockWithExpiry). `true`, or
 * the facts its cases need beyond that (FaultLabFacts).
 */
export type LockedDeduction<L extends Lease = Lease> = LockedBase<L> & ({ faultLab: true | FaultLabFacts; lock: LockWithExpiry<L> } | { faultLab?: false });

/** One strategy, as a family declares it; declareStrategy (declare.ts) makes it a Strategy. */
export type StrategyDeclaration<L extends Lease = Lease> = OwnDeduction | LockedDeduction<L>;

/** A group of strategies sharing connections (a Redis set, a ZooKeeper session, …). */
export interface StrategyFamily {
  strategies: Strategy[];
  /** Removes leftover locks, for POST /stock/reset. */
  clearLocks?(): Promise<void>;
  /** Reachability of what the family connects to, for GET /health. */
  health?(): Promise<Record<string, boolean>>;
  close?(): Promise<void>;
}

/** What every family may use; families open whatever else they need themselves. */
export interface SharedDeps {
  config: ServiceConfig;
  logger: Logger;
  db: DataSource;
  redis: Redis;
  stock: { mysql: MysqlStock; redis: RedisStock; postgres: PostgresStock };
}

export type FamilyFactory = (deps: SharedDeps) => Promise<StrategyFamily>;
