import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import type { ServiceConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { LockOptions } from '../locks/lock.js';
import type { MysqlStock } from '../stock/mysql-stock.js';
import type { RedisStock } from '../stock/redis-stock.js';
import type { StoreKind } from '../stock/store.js';

export type Outcome = 'exact' | 'oversells';
export type FamilyName = 'baseline' | 'sql' | 'redis' | 'redlock' | 'zookeeper' | 'mysql-lock';

/** What one GET /check/lock asks of a strategy, already validated. */
export interface DeductRequest {
  /** Simulated business time inside the critical section, between the read and the write. */
  workMs: number;
  store: StoreKind;
  lock: LockOptions;
  /** Who holds the locks this request takes: a token of its own (see locks/owner.ts). */
  owner: string;
}

export interface DeductResult {
  outcome: 'deducted' | 'sold_out';
  /** Set when something went wrong after the deduction committed (e.g. the lock expired first). */
  warning?: string;
}

export interface Strategy {
  name: string;
  family: FamilyName;
  description: string;
  /**
   * What the course shows, and what the tests assert. `workOverTtl`, for locks with a lease: the
   * outcome (on one instance or three) once the work inside the lock outlasts the lease (workMs > ttlMs).
   */
  expected: { oneInstance: Outcome; threeInstances: Outcome; workOverTtl?: Outcome; note?: string };
  /** Stores it can deduct from; the first is the default. */
  stores: readonly [StoreKind, ...StoreKind[]];
  /**
   * The SQL statements one deduction sends, in order, as the driver gets them (`?` for each
   * parameter); for a strategy that can use either store, those it sends with store=mysql.
   * Absent when it sends none (the Redis-only strategies).
   */
  sql?: readonly string[];
  deduct(req: DeductRequest): Promise<DeductResult>;
}

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
  stock: { mysql: MysqlStock; redis: RedisStock };
}

export type FamilyFactory = (deps: SharedDeps) => Promise<StrategyFamily>;
