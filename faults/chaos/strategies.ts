// Which strategies the chaos workload runs, and how, from what GET /strategies declares: every
// strategy that claims to be exact on three instances, fenced=1 where its lock issues tokens.
import type { Declared } from '../catalog-check.js';
import type { ChaosStrategy } from './history.js';

/**
 * Left out unless named: a lock the catalog says a killed holder keeps for good (holderCrash
 * 'never': redis-setnx, mysql-lock-table-basic) stops selling at the first killed holder until a
 * reset, which is its lesson, not something the run can judge.
 */
export const keptByKilledHolder = (d: Declared): boolean => d.expected.faults?.holderCrash === 'never';

/**
 * Left out unless named where links are cut (the hosts topologies): a lock that takes its key and
 * sets its expiry in two commands (the course's SETNX then EXPIRE) keeps the key for good when a cut
 * falls between them, and every later SETNX-family turn on that key then sells nothing until a
 * reset. That is its lesson (course-flaws shows it by sequencing), not something the run can judge.
 */
const KEPT_WHEN_CUT_BETWEEN_COMMANDS: ReadonlySet<string> = new Set(['redis-setnx-expire']);

/** Library locks on the main Redis (the others use the RedLock masters). */
const LIBRARY_ON_MAIN_REDIS: ReadonlySet<string> = new Set(['lib-redis-semaphore']);

export function chaosStrategy(d: Declared): ChaosStrategy {
  const fenced = d.fencing !== undefined;
  const locks = d.expected.faults !== undefined || fenced || d.family === 'library';
  const store = d.stores?.[0] ?? 'mysql';
  const lockOnMainRedis = d.family === 'redis' || LIBRARY_ON_MAIN_REDIS.has(d.name);
  return {
    name: d.name,
    store,
    // a fenced lock's store refuses the second holder a failover lets in: it must stay exact
    mayLoseInFailover: store === 'redis' || (lockOnMainRedis && !fenced),
    fenced,
    locks,
    // the catalog's holderPause 'oversells' (a lease a pause outlives), or a library's lease, with no token to refuse the late write
    mayOversellUnderPause: !fenced && (d.expected.faults?.holderPause === 'oversells' || d.family === 'library'),
  };
}

/** The exact-claiming strategies in the catalog's order; `wanted` (--strategies) picks among all of them. */
export function chaosStrategies(declared: ReadonlyMap<string, Declared>, wanted?: readonly string[], opts: { linksCut?: boolean } = {}): ChaosStrategy[] {
  if (wanted) {
    const unknown = wanted.filter((w) => !declared.has(w));
    if (unknown.length > 0) throw new Error(`unknown strategy: ${unknown.join(', ')}`);
    return [...declared.values()].filter((d) => wanted.includes(d.name)).map(chaosStrategy);
  }
  const keptForGood = (d: Declared) => keptByKilledHolder(d) || (opts.linksCut === true && KEPT_WHEN_CUT_BETWEEN_COMMANDS.has(d.name));
  return [...declared.values()].filter((d) => d.expected.threeInstances === 'exact' && !keptForGood(d)).map(chaosStrategy);
}
