// The only place that knows which strategies exist. The route asks the catalog, never a family.
import { baselineFamily } from './baseline.js';
import { etcdFamily } from './etcd.js';
import { libraryFamily } from './library.js';
import { mysqlLockFamily } from './mysql-lock.js';
import { postgresFamily } from './postgres.js';
import { redisFamily } from './redis.js';
import { redisLuaFamily } from './redis-lua.js';
import { redissonFamily } from './redisson.js';
import { redlockFamily } from './redlock.js';
import { sqlFamily } from './sql.js';
import { zookeeperFamily } from './zookeeper.js';
import { openAll } from '../open-all.js';
import type { FamilyFactory, SharedDeps, Strategy, StrategyFamily } from './strategy.js';

/**
 * In the order the course introduces them, then the libraries; the bench and /strategies keep this
 * order. Redisson's locks and the Lua decrement are listed in the Redis family, after its hand-written locks.
 */
const familyFactories: FamilyFactory[] = [
  baselineFamily,
  sqlFamily,
  redisFamily,
  redissonFamily,
  redisLuaFamily,
  redlockFamily,
  zookeeperFamily,
  mysqlLockFamily,
  postgresFamily,
  etcdFamily,
  libraryFamily,
];

export class Catalog {
  private readonly byName: Map<string, Strategy>;

  private constructor(private readonly families: StrategyFamily[]) {
    this.byName = new Map(families.flatMap((f) => f.strategies).map((s) => [s.name, s]));
  }

  static async open(deps: SharedDeps, factories: FamilyFactory[] = familyFactories): Promise<Catalog> {
    return new Catalog(await openAll(deps, factories));
  }

  get(name: string): Strategy | undefined {
    return this.byName.get(name);
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  list(): Strategy[] {
    return [...this.byName.values()];
  }

  /**
   * Clears every family's leftover locks. A family whose server is down cannot be cleared; that is
   * reported (family: reason), not thrown, so it never leaves a reset half done.
   */
  async clearLocks(): Promise<string[]> {
    const results = await Promise.allSettled(this.families.map((f) => f.clearLocks?.()));
    return results.flatMap((r, i) =>
      r.status === 'rejected'
        ? [`${this.families[i]?.strategies[0]?.family ?? 'locks'}: ${r.reason instanceof Error ? r.reason.message : String(r.reason)}`]
        : [],
    );
  }

  async health(): Promise<Record<string, boolean>> {
    const parts = await Promise.all(this.families.map((f) => f.health?.() ?? Promise.resolve({})));
    return Object.assign({}, ...parts);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.families.map((f) => f.close?.()));
  }
}
