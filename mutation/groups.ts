// What `npm run mutation` mutates, in groups small enough to run one at a time on two cores. The
// default (`core`) is the code the service's promises rest on most directly; `--all` runs every
// group but `core`, whose files the others cover.

export interface MutationGroup {
  name: string;
  /** What the group's code promises. */
  about: string;
  /** Globs, as StrykerJS's `mutate` takes them; empty for the Lua group. */
  mutate: readonly string[];
  /**
   * The test files that run this code in their own process (test/vitest.mutation.config.ts runs
   * only these): the others reach it only through a service instance, a child process no mutant
   * is switched on in.
   */
  tests: readonly string[];
}

const u = (name: string) => `test/unit/${name}.test.ts`;
const l = (name: string) => `test/locks/${name}.test.ts`;
const i = (name: string) => `test/integration/${name}.test.ts`;

export const LUA_GROUP = 'lua';

export const GROUPS: readonly MutationGroup[] = [
  {
    name: 'core',
    about:
      'the guards: RedLock’s release, hand-off and validity check, the lock table’s statements, acquire, reclaim and release, the fences, the guarded deduction and the in-flight cap',
    // Line ranges: the guards themselves (a lock mutant costs its contract tests, about a minute on
    // two busy cores); the whole files are in locks-redis and locks-mysql.
    mutate: [
      'src/locks/redis/redlock/redlock.ts:145-152', // the hand-off's quorum and validity
      'src/locks/redis/redlock/redlock.ts:228-240', // what a quorum of the hand-off's votes is
      'src/locks/redis/redlock/redlock.ts:196-196', // an acquire with no validity left holds nothing
      'src/locks/mysql/table-lock.ts:30-32', // peek and reclaim: only an expired row
      'src/locks/mysql/table-lock.ts:108-108', // wait while held, reclaim only what expired
      'src/locks/mysql/table-lock.ts:156-156', // a release that matched nothing says so
      'src/locks/mysql/table-lock.ts:178-178', // free, held or expired
      'src/fencing.ts',
      'src/strategies/guarded.ts',
      'src/http/in-flight.ts',
    ],
    tests: [
      u('in-flight'),
      u('handoff'),
      l('guarded'),
      l('table-lock-statements'),
      l('redlock-quorum'),
      l('mysql.contract'),
      l('redis.contract'),
      i('handoff'),
      i('mysql-lock-table'),
      i('fencing'),
      i('course-flaws'),
    ],
  },
  {
    name: 'locks-common',
    about: 'the lock interface, scopes, hand-off, holds, the in-process mutex and the libraries',
    mutate: ['src/locks/*.ts', 'src/locks/library/**/*.ts'],
    tests: [
      u('lock'),
      u('scope'),
      u('holds'),
      u('handoff'),
      u('lock-observer'),
      l('in-process.contract'),
      l('library.contract'),
      l('redis.contract'),
      i('handoff'),
    ],
  },
  {
    name: 'locks-mysql',
    about: 'the MySQL lock tables',
    mutate: ['src/locks/mysql/**/*.ts'],
    tests: [l('mysql.contract'), i('mysql-lock-table'), i('course-flaws'), i('sql-orm')],
  },
  {
    name: 'locks-redis',
    about: 'the Redis locks, RedLock and Redisson’s primitives',
    mutate: ['src/locks/redis/**/*.ts'],
    tests: [
      u('release-notifier'),
      u('lock-observer'),
      l('redis.contract'),
      l('lost-reply'),
      l('redisson'),
      l('library.contract'),
      i('handoff'),
      i('redis-locks'),
      i('fencing'),
    ],
  },
  {
    name: 'locks-zk',
    about: 'the ZooKeeper session, locks and recipes',
    mutate: ['src/locks/zk/**/*.ts'],
    tests: [u('zk-queue'), l('zookeeper.contract'), l('curator'), l('lost-reply'), i('zk-locks'), i('zk-herd')],
  },
  {
    name: 'stock',
    about: 'the stock stores and their fences',
    mutate: ['src/fencing.ts', 'src/stock/**/*.ts'],
    tests: [u('params'), l('guarded'), i('fencing'), i('sql-orm'), i('course-flaws')],
  },
  {
    name: 'strategies',
    about: 'the guarded deduction and the strategies’ declarations',
    mutate: ['src/strategies/**/*.ts'],
    tests: [u('params'), u('docs'), l('guarded'), i('course-flaws')],
  },
  {
    name: 'http',
    about: 'the route’s answers, parameters, error mapping and the in-flight cap',
    mutate: ['src/http/**/*.ts'],
    tests: [u('in-flight'), u('params'), u('bench-report'), u('docs')],
  },
  {
    name: 'process-line',
    about: 'the process line: one hold per instance passed from request to request, hand-off streaks, a token per pass, a waiter gone skipped',
    mutate: ['src/locks/process-line.ts'],
    tests: [u('process-line'), u('handoff')],
  },
  {
    name: 'partitions',
    about: 'the hosts topology’s plan (subnet, namespaces, addresses) and Jepsen’s partition shapes',
    // hosts.ts: the pure plan only (hostOf, planHostsLayout). The rest runs `ip` and `iptables` as
    // root: the network project's root-only tests build and remove real namespaces with it.
    mutate: ['src/net/grudge.ts', 'src/net/subnet.ts', 'src/net/hosts.ts:30-47'],
    tests: [u('partitions')],
  },
  {
    name: 'forwarder',
    about: 'the delaying forwarder: half the round trip each way, byte order, half-close and reset passed on, no delay at 0',
    mutate: ['src/net/forwarder.ts', 'src/net/direction.ts', 'src/net/delay-scheduler.ts', 'src/net/forwarder-args.ts'],
    tests: [u('forwarder'), u('forwarder-args'), u('delay-scheduler'), u('delay-scheduler-plan'), u('direction')],
  },
  {
    name: 'checker',
    about: 'the chaos checker: every answer judged against the history, excuses only in a fault’s own window',
    mutate: ['faults/chaos/checker.ts', 'faults/chaos/history.ts'],
    tests: [u('chaos-checker')],
  },
  {
    name: 'locks-etcd',
    about: 'the etcd recipe (with and without its check after the wait), its lease kept alive, the bounded client and watch',
    // The etcd integration file races through nginx (instances: child processes): the contract and
    // the unit tests on stand-in clients run this code in-process.
    mutate: ['src/locks/etcd/**/*.ts'],
    tests: [u('etcd-lock'), u('etcd-lease'), u('etcd-mutex'), l('etcd.contract')],
  },
  {
    name: 'locks-postgres',
    about: 'PostgreSQL’s advisory locks: the keys, the transaction lock (and its try twin), the session lock’s kept flaw',
    mutate: ['src/locks/pg/**/*.ts'],
    tests: [u('pg-advisory-key'), u('pg-locks'), l('postgres.contract'), i('postgres-statement-bound')],
  },
  {
    name: 'course-steps',
    about:
      'the course’s flawed steps, each keeping its flaw: setnx with no expiry, set-then-expire, getset, the blind and the get-then-del release, the herd, the basic lock table',
    mutate: ['src/locks/redis/string/*.ts', 'src/locks/mysql/basic-table-lock.ts', 'src/locks/zk/herd.ts'],
    tests: [l('course-steps'), l('redis.contract'), l('mysql.contract'), l('zookeeper.contract'), l('zk-herd')],
  },
  {
    name: 'soak',
    about: 'the soak’s growth verdict: warm-up, floors per window, too short to judge',
    mutate: ['faults/soak/verdict.ts', 'faults/soak/slope.ts'],
    tests: [u('soak-verdict'), u('soak-report')],
  },
  {
    name: 'live-guard',
    about: 'the live page’s guards: the Host check, no cross-origin, and the token on every request that changes something',
    // Line ranges: the guards, not the routes they guard.
    mutate: ['live/http.ts:168-172', 'live/http.ts:235-250'],
    tests: [u('live-token')],
  },
  { name: LUA_GROUP, about: 'one mutant per lua/ script guard (mutation/lua-mutants.ts)', mutate: [], tests: [] },
];

export const DEFAULT_GROUPS = ['core', LUA_GROUP];
export const ALL_GROUPS = GROUPS.map((g) => g.name).filter((n) => n !== 'core');
