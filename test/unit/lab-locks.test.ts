// The fault lab's lock facts come from the catalog (faults/locks.ts reads GET /strategies): the real
// catalog, opened with its connections stood in for (nothing dials a server), served as the route
// serves it, must give the lab exactly the facts its hand-written table used to list; and a lock
// strategy added to the catalog must get facts without an edit under faults/.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { parseDeclared } from '../../faults/catalog-check.js';
import { labLocks } from '../../faults/locks.js';
import { makeRecorder } from '../../faults/chaos/run.js';
import { chaosStrategies } from '../../faults/chaos/strategies.js';
import { parseRequestId } from '../../src/http/params.js';
import { loadServiceConfig } from '../../src/config.js';
import type { Lease, LockWithExpiry } from '../../src/locks/lock.js';
import { Catalog } from '../../src/strategies/catalog.js';
import { declareStrategies } from '../../src/strategies/declare.js';
import { servedStrategy } from '../../src/strategies/served.js';
import type { FamilyFactory, SharedDeps } from '../../src/strategies/strategy.js';

// The unit files share their workers' module cache (isolate: false): the modules this file mocks,
// and those that import them, are loaded afresh for it, and again for the files after it.
vi.hoisted(() => vi.resetModules());
/** Stands in for a client or a store that is never used: every property and call is itself, and it iterates as empty. */
function inert(): never {
  // biome-ignore lint/complexity/useArrowFunction: the construct trap needs a target that can be called with new, which an arrow cannot
  const proxy: object = new Proxy(function () {}, {
    get: (_t, p) => (p === Symbol.iterator ? function* () {} : p === 'then' ? undefined : proxy),
    apply: () => proxy,
    construct: () => proxy,
  });
  return proxy as never;
}

// Every connection a family opens, stood in for: opening the catalog dials no server.
vi.mock('../../src/redis-client/connect.js', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  connectMainRedis: () => inert(),
  connectRedis: () => inert(),
  connectRedlockMasters: async (config: { redlock: { urls: string[] } }) => config.redlock.urls.map(() => inert()),
  waitReady: async () => true,
}));
vi.mock('../../src/locks/zk/session.js', async (importOriginal) => ({ ...(await importOriginal<object>()), ZkSession: { open: async () => inert() } }));
vi.mock('../../src/locks/etcd/client.js', async (importOriginal) => ({ ...(await importOriginal<object>()), openEtcd: () => inert() }));
vi.mock('../../src/db/postgres-pool.js', async (importOriginal) => ({ ...(await importOriginal<object>()), openPostgresPool: () => inert() }));
afterAll(() => {
  for (const m of ['../../src/redis-client/connect.js', '../../src/locks/zk/session.js', '../../src/locks/etcd/client.js', '../../src/db/postgres-pool.js'])
    vi.doUnmock(m);
  vi.resetModules();
});

const deps: SharedDeps = { config: loadServiceConfig({}), logger: inert(), db: inert(), redis: inert(), stock: inert() };

/** GET /strategies' body for a catalog, as the route writes it. */
async function served(catalog: Catalog): Promise<string> {
  return JSON.stringify({ ok: true, default: 'none', strategies: catalog.list().map((s) => servedStrategy(s, 'en')) });
}

async function labLocksOfCatalog(factories?: FamilyFactory[]) {
  const catalog = await Catalog.open(deps, factories);
  try {
    return labLocks(parseDeclared(await served(catalog)));
  } finally {
    await catalog.close();
  }
}

/**
 * What faults/locks.ts listed by hand before it read the catalog (CLAIM, UNFENCED, WHOLE_SECOND_LEASES,
 * POSTGRES_LOCKS, SINGLE_REDIS_LOCKS), written down once: a catalog change that alters any of them
 * changes the lab's cases, and must fail here first. The order is the catalog's (PostgreSQL's
 * family before etcd's); the old table had etcd's two first.
 */
const CLAIM = {
  'redis-setnx': 'forever',
  'redis-setnx-expire': 'ttl',
  'redis-setnx-ex': 'ttl',
  'redis-setnx-getset': 'ttl',
  'redis-owned-get-del': 'ttl',
  'redis-owned': 'ttl',
  'redis-reentrant': 'ttl',
  'redis-watchdog': 'ttl',
  'redis-pubsub': 'ttl',
  redlock: 'ttl',
  'redlock+line': 'ttl',
  'zk-ephemeral': 'session',
  'zk-sequential': 'session',
  'zk-herd': 'session',
  'zk-watch': 'session',
  'zk-watch+line': 'session',
  'zk-reentrant': 'session',
  'zk-reentrant+line': 'session',
  'mysql-lock-table-basic': 'forever',
  'mysql-lock-table': 'ttl',
  'pg-advisory-xact': 'connection',
  'pg-advisory-session': 'connection',
  'pg-try-advisory': 'connection',
  'etcd-lock': 'ttl',
  'etcd-lock-no-recheck': 'ttl',
} as const;
const UNFENCED = ['redlock', 'redlock+line', 'redis-setnx-expire', 'redis-setnx-getset', 'mysql-lock-table-basic', 'pg-advisory-session'];
const WHOLE_SECOND_LEASES = ['etcd-lock', 'etcd-lock-no-recheck'];
const POSTGRES_LOCKS = ['pg-advisory-xact', 'pg-advisory-session', 'pg-try-advisory'];
const SINGLE_REDIS_LOCKS = ['redis-setnx', 'redis-setnx-ex', 'redis-owned', 'redis-reentrant', 'redis-watchdog', 'redis-pubsub'];

describe("the fault lab's lock facts, read from the catalog", () => {
  it('are what the hand-written table said, for every strategy', async () => {
    const locks = await labLocksOfCatalog();
    const names = Object.keys(CLAIM);
    expect(locks.all).toEqual(names);
    expect(locks.zk).toEqual(names.filter((s) => CLAIM[s as keyof typeof CLAIM] === 'session'));
    expect(locks.singleRedis).toEqual(SINGLE_REDIS_LOCKS);
    const facts = Object.fromEntries(
      locks.all.map((s) => [
        s,
        {
          claim: locks.claimOf(s),
          fenceable: locks.fenceable(s),
          home: locks.homeStoreOf(s),
          lease500: locks.leaseMsOf(s, 500),
          lease1001: locks.leaseMsOf(s, 1_001),
        },
      ]),
    );
    const was = Object.fromEntries(
      names.map((s) => {
        const whole = WHOLE_SECOND_LEASES.includes(s);
        return [
          s,
          {
            claim: CLAIM[s as keyof typeof CLAIM],
            fenceable: !UNFENCED.includes(s),
            home: POSTGRES_LOCKS.includes(s) ? 'postgres' : 'mysql',
            lease500: whole ? 1_000 : 500,
            lease1001: whole ? 2_000 : 1_001,
          },
        ];
      }),
    );
    expect(facts).toEqual(was);
  });

  it("declare lost-reply's subjects only where its case can be built: the main Redis, a Redis token, the owner's release", async () => {
    const catalog = await Catalog.open(deps);
    try {
      const declared = parseDeclared(await served(catalog));
      for (const name of labLocks(declared).singleRedis) {
        const d = declared.get(name);
        expect({ name, family: d?.family, fencing: d?.fencing, lostReply: d?.expected.faults?.lostReply }).toEqual({
          name,
          family: 'redis',
          fencing: 'redis',
          lostReply: 'released by its owner',
        });
      }
    } finally {
      await catalog.close();
    }
  });

  it('give a lock strategy added to the catalog its facts, with no edit under faults/', async () => {
    const lock = (expiry: LockWithExpiry['expiry'], fencing?: 'redis'): LockWithExpiry<Lease> => ({
      expiry,
      lostAcquire: 'released by its owner',
      ...(fencing && { fencing }),
      acquire: async () => inert(),
    });
    const expected = { oneInstance: 'exact', threeInstances: 'exact' } as const;
    const added: FamilyFactory = async (d) => ({
      strategies: declareStrategies(d, [
        {
          name: 'new-lease-lock',
          family: 'redis',
          course: 'beyond the course',
          description: { en: '', zh: '' },
          expected,
          lock: lock('lease', 'redis'),
          faultLab: true,
        },
        {
          name: 'new-session-lock',
          family: 'zookeeper',
          course: 'beyond the course',
          description: { en: '', zh: '' },
          expected,
          lock: lock('session'),
          faultLab: { wholeSecondLeases: true },
        },
        { name: 'new-unmeasured-lock', family: 'redis', course: 'beyond the course', description: { en: '', zh: '' }, expected, lock: lock('none') },
      ]),
    });
    const locks = await labLocksOfCatalog([added]);
    expect(locks.all).toEqual(['new-lease-lock', 'new-session-lock']);
    expect(locks.zk).toEqual(['new-session-lock']);
    expect(locks.singleRedis).toEqual([]);
    expect(locks.facts('new-lease-lock')).toEqual({
      name: 'new-lease-lock',
      claim: 'ttl',
      fenceable: true,
      homeStore: 'mysql',
      wholeSecondLeases: false,
      lostReplyCase: false,
    });
    expect(locks.leaseMsOf('new-session-lock', 1_500)).toBe(2_000);
    expect(() => locks.facts('new-unmeasured-lock')).toThrow(/declares no fault outcomes for new-unmeasured-lock/);
  });

  it('refuse a claim the lab has no case for, loudly', () => {
    const body = JSON.stringify({ strategies: [{ name: 'x', expected: { faults: { holderCrash: 'after a while', holderPause: 'exact' } } }] });
    expect(() => labLocks(parseDeclared(body))).toThrow("GET /strategies: x declares holderCrash 'after a while', which the fault lab has no case for");
  });
});

describe('the chaos and soak workloads, over the same catalog', () => {
  it('send every strategy they run under an X-Request-Id the service accepts (redlock+line’s “+” is not one)', async () => {
    const catalog = await Catalog.open(deps);
    try {
      const declared = parseDeclared(await served(catalog));
      const names = chaosStrategies(declared, [...declared.keys()]).map((s) => s.name);
      expect(names).toContain('redlock+line');
      for (const prefix of ['chaos20261126', 'soak.']) {
        const rec = makeRecorder(prefix);
        const ids = names.map((name) => rec.nextId(name, 'goodput'));
        for (const id of ids) expect(() => parseRequestId(id), id).not.toThrow();
        expect(new Set(ids).size).toBe(ids.length);
      }
    } finally {
      await catalog.close();
    }
  });
});
