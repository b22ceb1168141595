// What `npm run mutation` mutates, in groups small enough to run one at a time on two cores. The
// default (`core`) is the code the service's promises rest on most directly; `--all` runs every
// group but `core`, whose files the others cover.

export interface MutationGroup {
  name: string;
  /** What the group's code promises. */
  about: string;
  /** Globs, as StrykerJS's `mutate` takes them; empty for the Lua group. */
  mutate: readonly string[];
}

export const LUA_GROUP = 'lua';

export const GROUPS: readonly MutationGroup[] = [
  {
    name: 'core',
    about: 'RedLock and its hand-off, the MySQL lock table, the fences, the guarded deduction, the answers and the in-flight cap',
    mutate: ['src/locks/redis/redlock/redlock.ts', 'src/locks/mysql/table-lock.ts', 'src/fencing.ts', 'src/strategies/guarded.ts', 'src/http/answers.ts', 'src/http/in-flight.ts'],
  },
  { name: 'locks-common', about: 'the lock interface, scopes, hand-off, holds and the in-process mutex', mutate: ['src/locks/*.ts', 'src/locks/library/**/*.ts'] },
  { name: 'locks-mysql', about: 'the MySQL lock tables', mutate: ['src/locks/mysql/**/*.ts'] },
  { name: 'locks-redis', about: 'the Redis locks, RedLock and Redisson’s primitives', mutate: ['src/locks/redis/**/*.ts'] },
  { name: 'locks-zk', about: 'the ZooKeeper session, locks and recipes', mutate: ['src/locks/zk/**/*.ts'] },
  { name: 'stock', about: 'the stock stores and their fences', mutate: ['src/fencing.ts', 'src/stock/**/*.ts'] },
  { name: 'strategies', about: 'the guarded deduction and the strategies’ declarations', mutate: ['src/strategies/**/*.ts'] },
  { name: 'http', about: 'the route’s answers, parameters, error mapping and the in-flight cap', mutate: ['src/http/**/*.ts'] },
  { name: LUA_GROUP, about: 'one mutant per lua/ script guard (mutation/lua-mutants.ts)', mutate: [] },
];

export const DEFAULT_GROUPS = ['core', LUA_GROUP];
export const ALL_GROUPS = GROUPS.map((g) => g.name).filter((n) => n !== 'core');
