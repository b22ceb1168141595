// One mutant per Lua script guard: the owner, expiry, token or count comparison a lock's or a
// store's promise rests on, flipped or removed. StrykerJS does not read lua/*.lua, so these are
// run by mutation/lua.ts: each must fail the tests named beside it.

/** A test selection: files under test/, and a name pattern (vitest -t) within them. */
export interface LuaTests {
  files: readonly string[];
  names: string;
}

export interface LuaMutant {
  script: string;
  /** What the mutant breaks, for the table. */
  mutation: string;
  /** The text replaced (it must occur exactly once in the script) and its replacement. */
  from: string;
  to: string;
  tests: LuaTests;
}

const REDIS_CONTRACT = 'test/locks/redis.contract.test.ts';
const REDISSON = 'test/locks/redisson.test.ts';
const FENCING = 'test/integration/fencing.test.ts';
const HANDOFF = 'test/integration/handoff.test.ts';

const contract = (lock: string): LuaTests => ({ files: [REDIS_CONTRACT], names: `lock contract: ${lock}` });

export const LUA_MUTANTS: readonly LuaMutant[] = [
  {
    script: 'lock-owned-release',
    mutation: 'owner comparison flipped (== → ~=): releases only what another holds',
    from: "if redis.call('get', KEYS[1]) == ARGV[1] then",
    to: "if redis.call('get', KEYS[1]) ~= ARGV[1] then",
    tests: contract('redis-owned '),
  },
  {
    script: 'lock-string-acquire',
    mutation: 'NX refusal ignored (if not set → if false): a second owner gets a token',
    from: 'if not set then',
    to: 'if false then',
    tests: contract('redis-owned '),
  },
  {
    script: 'lock-reentrant-acquire',
    mutation: 'held-by-another guard removed (exists == 1 → == 2): a second owner joins the hash',
    from: "if redis.call('exists', KEYS[1]) == 1 then",
    to: "if redis.call('exists', KEYS[1]) == 2 then",
    tests: contract('redis-reentrant'),
  },
  {
    script: 'lock-reentrant-release',
    mutation: 'owner guard flipped (hexists == 0 → ~= 0): the owner cannot release, another can',
    from: "if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then",
    to: "if redis.call('hexists', KEYS[1], ARGV[1]) ~= 0 then",
    tests: contract('redis-reentrant'),
  },
  {
    script: 'lock-reentrant-renew',
    mutation: 'owner guard flipped (hexists == 1 → ~= 1): renews only a lease it does not hold',
    from: "if redis.call('hexists', KEYS[1], ARGV[1]) == 1 then",
    to: "if redis.call('hexists', KEYS[1], ARGV[1]) ~= 1 then",
    tests: contract('redis-watchdog'),
  },
  {
    script: 'lock-reentrant-handoff',
    mutation: 'owner guard removed (if not count → if false): a non-owner hands the lock on',
    from: 'if not count then',
    to: 'if false then',
    tests: { files: [HANDOFF], names: 'redis-pubsub' },
  },
  {
    script: 'redlock-handoff',
    mutation: 'owner comparison flipped (== → ~=): overwrites another owner on a master',
    from: "if redis.call('get', KEYS[1]) == ARGV[1] then",
    to: "if redis.call('get', KEYS[1]) ~= ARGV[1] then",
    tests: { files: [HANDOFF], names: 'redlock' },
  },
  {
    script: 'fair-acquire',
    mutation: 'held guard flipped (exists == 0 → ~= 0): grants while another holds',
    from: "if redis.call('exists', KEYS[1]) == 0 then",
    to: "if redis.call('exists', KEYS[1]) ~= 0 then",
    tests: contract('redis-fair'),
  },
  {
    script: 'fair-release',
    mutation: 'owner guard flipped (hexists == 0 → ~= 0)',
    from: "if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then",
    to: "if redis.call('hexists', KEYS[1], ARGV[1]) ~= 0 then",
    tests: contract('redis-fair'),
  },
  {
    script: 'rw-acquire',
    mutation: 'refusal removed (if not granted → if false): a writer joins readers or a writer',
    from: 'if not granted then',
    to: 'if false then',
    tests: contract('read-write lock, write'),
  },
  {
    script: 'rw-release',
    mutation: 'expiry comparison flipped (ends <= now → ends > now): a live hold cannot release, an ended one can',
    from: 'tonumber(ends) <= now then',
    to: 'tonumber(ends) > now then',
    tests: contract('read-write lock, write'),
  },
  {
    script: 'rw-renew',
    mutation: 'expiry comparison flipped (ends <= now → ends > now): renews only ended holds',
    from: 'tonumber(ends) <= now then',
    to: 'tonumber(ends) > now then',
    // The contract's lock is lost either way once a renewal fails; only a hold the watchdog must
    // keep past its first lease tells a renewal that works.
    tests: { files: [REDISSON], names: 'the watchdog keeps a short lease' },
  },
  {
    script: 'semaphore-expirable-acquire',
    mutation: 'permit count guard off by one (left > 0 → left >= 0): one holder more than permits',
    from: 'if left > 0 then',
    to: 'if left >= 0 then',
    tests: contract('permit-expirable semaphore'),
  },
  {
    script: 'semaphore-expirable-release',
    mutation: 'expiry comparison flipped (ends <= now → ends > now)',
    from: 'tonumber(ends) <= now then',
    to: 'tonumber(ends) > now then',
    tests: contract('permit-expirable semaphore'),
  },
  {
    script: 'semaphore-expirable-renew',
    mutation: 'expiry comparison flipped (ends <= now → ends > now): renews only ended permits',
    from: 'tonumber(ends) <= now then',
    to: 'tonumber(ends) > now then',
    tests: { files: [REDISSON], names: 'the watchdog keeps a live holder' },
  },
  {
    script: 'semaphore-acquire',
    mutation: 'permit count guard off by one (left > 0 → left >= 0)',
    from: 'if left > 0 then',
    to: 'if left >= 0 then',
    tests: { files: [REDISSON], names: 'semaphore' },
  },
  {
    script: 'latch-count-down',
    mutation: 'opening guard off by one (left > 0 → left > 1): opens one count early',
    from: 'if left > 0 then',
    to: 'if left > 1 then',
    tests: { files: [REDISSON], names: 'countdown latch' },
  },
  {
    script: 'stock-decrement',
    mutation: 'sold-out guard off by one (count <= 0 → count < 0): sells a unit that is not there',
    from: 'if count <= 0 then',
    to: 'if count < 0 then',
    tests: { files: ['test/integration/redis-races.test.ts'], names: 'redis-lua-decr \\(store redis\\)' },
  },
  {
    script: 'stock-fence-claim',
    mutation: 'token comparison loosened (< → <=): an equal token claims again',
    from: "or '0') < tonumber(ARGV[1]) then",
    to: "or '0') <= tonumber(ARGV[1]) then",
    tests: { files: [FENCING], names: 'redis' },
  },
  {
    script: 'stock-fenced-write',
    mutation: 'fence comparison flipped (~= → ==): writes only under a stale claim',
    from: "if redis.call('get', KEYS[2]) ~= ARGV[1] then",
    to: "if redis.call('get', KEYS[2]) == ARGV[1] then",
    tests: { files: [FENCING], names: 'redis' },
  },
];
