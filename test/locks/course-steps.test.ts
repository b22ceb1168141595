// The course's flawed steps, called in this process against a Redis and a MariaDB of their own, so
// a mutant in them can fail a test (the races that show their flaws run through instances, where
// no mutant reaches). What each writes, where it stops (its pause points, in order with the
// commands around them), what it does with a timestamp that is not its own, what a lost reply
// leaves, and that what each declares (expiry, fencing, pause points) is what it does. Each flaw is
// built by sequencing, never by a race: commands a pause sends go out on the lock's own connection,
// so they reach the server before the command the pause stands before.
import type { Redis } from 'ioredis';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataSource } from '../../src/db/data-source.js';
import { DependencyDownError } from '../../src/dependency.js';
import { LockNotHeldError, LockTimeoutError } from '../../src/locks/errors.js';
import { LockClock } from '../../src/locks/lock-clock.js';
import type { AcquireOptions, Lock, LockPausePoint, LockWithExpiry } from '../../src/locks/lock.js';
import { MysqlBasicTableLock } from '../../src/locks/mysql/basic-table-lock.js';
import { expiryValueLockKey, fenceCounterKey, stringLockKey } from '../../src/locks/redis/keys.js';
import { OwnedGetDelLock } from '../../src/locks/redis/string/owned-get-del.js';
import { OwnedLock } from '../../src/locks/redis/string/owned.js';
import { SetnxExpiryLock } from '../../src/locks/redis/string/setnx-expiry.js';
import { SetnxGetsetLock } from '../../src/locks/redis/string/setnx-getset.js';
import { SetnxThenExpireLock } from '../../src/locks/redis/string/setnx-then-expire.js';
import { SetnxLock } from '../../src/locks/redis/string/setnx.js';
import { pollUntil } from '../../src/time.js';
import { openRedis } from '../support/redis-client.js';
import { statementLogger } from '../support/statement-log.js';
import { withServers } from '../support/servers.js';

const servers = withServers({ redis: 1, mysql: true });

const TTL_MS = 30_000;
/** waitMs 0: exactly one attempt, so nothing here waits on a timing. */
const once = (owner: string, extra: Partial<AcquireOptions> = {}): AcquireOptions => ({ ttlMs: TTL_MS, waitMs: 0, retryMs: 10, owner, ...extra });
/** The dependency a DependencyDownError names (the 503's `error`), or the failure itself when it is not one. */
const downError = (acquire: Promise<unknown>): Promise<unknown> =>
  acquire.then(
    () => 'acquired',
    (err: unknown) => (err instanceof DependencyDownError ? err.dependency : err),
  );
let resources = 0;
const fresh = () => `test:course-steps:${++resources}`;

let redis: Redis;
beforeAll(async () => {
  redis = await openRedis(servers.current.redis[0] as string);
});
afterAll(() => redis?.disconnect());

/**
 * The lock's client, with every command the lock sends (and every pause it makes) written to
 * `log` in order. Calls made inside ioredis go to the client itself and are not logged.
 */
function recorded(client: Redis, log: string[]): Redis {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        log.push(String(prop));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
const pausingInto =
  (log: string[], then: (at: LockPausePoint) => void = () => undefined) =>
  (at: LockPausePoint) => {
    log.push(`pause:${at}`);
    then(at);
  };

type StringLock = LockWithExpiry & Lock;
const family: [string, (r: Redis) => StringLock][] = [
  ['redis-setnx', (r) => new SetnxLock(r)],
  ['redis-setnx-expire', (r) => new SetnxThenExpireLock(r)],
  ['redis-setnx-ex', (r) => new SetnxExpiryLock(r)],
  ['redis-owned', (r) => new OwnedLock(r)],
  ['redis-owned-get-del', (r) => new OwnedGetDelLock(r)],
];

describe('the SETNX family on one Redis', () => {
  it.each(family)(
    '%s: the key holds the owner, with a Redis expiry of ttlMs exactly when it declares a lease, and the release deletes it',
    async (_name, make) => {
      const lock = make(redis);
      const resource = fresh();
      const key = stringLockKey(resource);
      const lease = await lock.acquire(resource, once('alice'));
      expect(await redis.get(key)).toBe('alice');
      const pttl = await redis.pttl(key);
      expect(lock.expiry).toBe(pttl === -1 ? 'none' : 'lease');
      if (lock.expiry === 'lease') expect(pttl).toBeGreaterThan(TTL_MS - 5_000);
      expect(pttl).toBeLessThanOrEqual(TTL_MS);
      await lease.release();
      expect(await redis.exists(key)).toBe(0);
    },
  );

  it.each(family)('%s: taken, an attempt is refused with LockTimeoutError and leaves the holder’s key as it was', async (_name, make) => {
    const lock = make(redis);
    const resource = fresh();
    const held = await lock.acquire(resource, once('alice'));
    await expect(lock.acquire(resource, once('bob'))).rejects.toBeInstanceOf(LockTimeoutError);
    expect(await redis.get(stringLockKey(resource))).toBe('alice');
    await held.release();
  });

  it.each(family)('%s: a fencing token exactly when it declares Redis’s counter, one more than the last grant’s', async (_name, make) => {
    const lock = make(redis);
    const resource = fresh();
    const first = await lock.acquire(resource, once('alice'));
    if (lock.fencing === undefined) {
      expect(first.fencingToken).toBeUndefined();
      return void (await first.release());
    }
    expect(lock.fencing).toBe('redis');
    const a = await first.fencingToken!();
    await first.release();
    const second = await lock.acquire(resource, once('bob'));
    const b = await second.fencingToken!();
    await second.release();
    expect(a).toBeGreaterThan(0n);
    expect(b).toBe(a + 1n);
    expect(await redis.get(fenceCounterKey(resource))).toBe(String(b));
  });

  it('redis-setnx-expire issues no token: the course’s two commands draw none', () => {
    expect((new SetnxThenExpireLock(redis) as Lock).fencing).toBeUndefined();
  });

  it('redis-setnx-expire stops at after-setnx between its SETNX and its EXPIRE, where the key has no expiry at all', async () => {
    const log: string[] = [];
    const client = recorded(redis, log);
    const lock = new SetnxThenExpireLock(client);
    const resource = fresh();
    let ttlAtPause: Promise<number> | undefined;
    // Sent on the lock's connection from inside the pause, so it reaches Redis before the EXPIRE.
    const lease = await lock.acquire(resource, once('alice', { pause: pausingInto(log, () => (ttlAtPause = redis.pttl(stringLockKey(resource)))) }));
    expect(log).toEqual(['setnx', 'pause:after-setnx', 'pexpire']);
    expect(lock.pausePoints).toEqual(['after-setnx']);
    expect(await ttlAtPause).toBe(-1);
    await lease.release();
  });

  it('redis-owned-get-del stops at before-del between its GET and its DEL: a lock taken there is deleted by the old holder (its flaw)', async () => {
    const log: string[] = [];
    const lock = new OwnedGetDelLock(recorded(redis, log));
    const resource = fresh();
    const key = stringLockKey(resource);
    // Alice's lease ends at the pause, and Bob takes the lock: both sent before her DEL.
    const lease = await lock.acquire(resource, once('alice', { pause: pausingInto(log, () => void redis.set(key, 'bob')) }));
    log.length = 0;
    await lease.release();
    expect(log).toEqual(['get', 'pause:before-del', 'del']);
    expect(lock.pausePoints).toEqual(['before-del']);
    expect(await redis.exists(key)).toBe(0);
  });

  it('redis-owned stops at before-del, and its check comes with the delete: a lock taken there stays its new holder’s', async () => {
    const log: string[] = [];
    const lock = new OwnedLock(recorded(redis, log));
    const resource = fresh();
    const key = stringLockKey(resource);
    const lease = await lock.acquire(resource, once('alice', { pause: pausingInto(log, () => void redis.set(key, 'bob')) }));
    log.length = 0;
    await expect(lease.release()).rejects.toBeInstanceOf(LockNotHeldError);
    expect(log).toEqual(['pause:before-del', 'lua_lock_owned_release']);
    expect(lock.pausePoints).toEqual(['before-del']);
    expect(await redis.get(key)).toBe('bob');
  });

  it('redis-owned-get-del refuses a release once another owner holds the key, and leaves it', async () => {
    const lock = new OwnedGetDelLock(redis);
    const resource = fresh();
    const lease = await lock.acquire(resource, once('alice'));
    await redis.set(stringLockKey(resource), 'bob');
    await expect(lease.release()).rejects.toBeInstanceOf(LockNotHeldError);
    expect(await redis.get(stringLockKey(resource))).toBe('bob');
  });

  it.each([
    ['redis-setnx', (r: Redis) => new SetnxLock(r)],
    ['redis-setnx-expire', (r: Redis) => new SetnxThenExpireLock(r)],
    ['redis-setnx-ex', (r: Redis) => new SetnxExpiryLock(r)],
  ])('%s releases blindly: a lock another owner took is deleted', async (_name, make) => {
    const lock = make(redis);
    const resource = fresh();
    const lease = await lock.acquire(resource, once('alice'));
    await redis.set(stringLockKey(resource), 'bob');
    await lease.release();
    expect(await redis.exists(stringLockKey(resource))).toBe(0);
  });
});

/**
 * Redis's reply to `command` never arrives (Redis applied it): the client gives up as on a command
 * timeout, after `meanwhile` has run. Every command is written to `log` as it is sent.
 */
function losingReplies(client: Redis, command: string, log: string[] = [], meanwhile: () => Promise<unknown> = async () => undefined): Redis {
  let lost = false;
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        log.push(String(prop));
        const reply = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (prop !== command || lost) return reply;
        lost = true;
        await meanwhile();
        throw new Error('Command timed out');
      };
    },
  });
}

describe('an acquire whose reply is lost', () => {
  it.each(family.map(([name, make]) => [name, name === 'redis-setnx-expire' ? 'setnx' : 'lua_lock_string_acquire', make] as const))(
    '%s: a 503 naming Redis, and the lock it took is given back by its owner, as it declares',
    async (_name, command, make) => {
      const lock = make(losingReplies(redis, command));
      expect(lock.lostAcquire).toBe('released by its owner');
      const resource = fresh();
      expect(await downError(lock.acquire(resource, once('alice')))).toBe('redis');
      expect(await pollUntil(async () => (await redis.exists(stringLockKey(resource))) === 0, 5_000, 20)).toBe(true);
    },
  );

  it('redis-setnx-getset: its time is left behind, as it declares, and is taken over once it has passed', async () => {
    const resource = fresh();
    const key = expiryValueLockKey(resource);
    const NOW = 1_700_000_000_000;
    const log: string[] = [];
    const lost = new SetnxGetsetLock(losingReplies(redis, 'setnx', log), new StoppedClock(NOW));
    expect(lost.lostAcquire).toBe('expires with its lease');
    expect(await downError(lost.acquire(resource, once('alice')))).toBe('redis');
    await redis.ping(); // behind anything the acquire sent after its SETNX
    expect(log).toEqual(['setnx']);
    expect(await redis.get(key)).toBe(String(NOW + TTL_MS));
    const later = new SetnxGetsetLock(redis, new StoppedClock(NOW + TTL_MS + 1));
    await (await later.acquire(resource, once('bob'))).release();
  });

  it('the owner’s give-back never deletes a lock another owner holds by then', async () => {
    const resource = fresh();
    const key = stringLockKey(resource);
    const log: string[] = [];
    // Alice's lock went (a reset) and Bob took it before her give-back reaches Redis.
    const lock = new SetnxLock(losingReplies(redis, 'lua_lock_string_acquire', log, () => redis.set(key, 'bob')));
    await expect(lock.acquire(resource, once('alice'))).rejects.toBeInstanceOf(DependencyDownError);
    expect(await pollUntil(() => log.includes('lua_lock_owned_release'), 5_000, 5)).toBe(true);
    await redis.ping(); // behind the give-back on the same connection: it has been answered
    expect(await redis.get(key)).toBe('bob');
  });
});

/** A lock clock stopped at `at`, so "expired" and "now" are exact. */
class StoppedClock extends LockClock {
  constructor(private readonly at: number) {
    super();
  }
  override now(): number {
    return this.at;
  }
}

describe('redis-setnx-getset: the lock’s value is its own expiry, on the acquirer’s clock', () => {
  const NOW = 1_700_000_000_000;
  const lockAt = (client: Redis = redis) => new SetnxGetsetLock(client, new StoppedClock(NOW));

  it('writes now + ttlMs, with no Redis expiry, and declares a lease with no token', async () => {
    const resource = fresh();
    const lease = await lockAt().acquire(resource, once('alice'));
    expect(await redis.get(expiryValueLockKey(resource))).toBe(String(NOW + TTL_MS));
    expect(await redis.pttl(expiryValueLockKey(resource))).toBe(-1);
    expect(lockAt().expiry).toBe('lease');
    expect((lockAt() as Lock).fencing).toBeUndefined();
    expect(lease.fencingToken).toBeUndefined();
    await lease.release();
    expect(await redis.exists(expiryValueLockKey(resource))).toBe(0);
  });

  it.each([
    ['a moment ago', String(NOW - 1)],
    ['long ago, in fewer digits', '1000'],
  ])('takes over a lock whose time has passed (%s): GETSET writes its own', async (_when, stamp) => {
    const resource = fresh();
    await redis.set(expiryValueLockKey(resource), stamp);
    const lease = await lockAt().acquire(resource, once('alice'));
    expect(await redis.get(expiryValueLockKey(resource))).toBe(String(NOW + TTL_MS));
    await lease.release();
  });

  it.each([
    ['exactly now', String(NOW)],
    ['in the future', String(NOW + 1)],
    ['digits then letters', '1000abc'],
    ['letters then digits', 'abc1000'],
    ['a negative time', '-1000'],
    ['empty', ''],
  ])('never takes over a value that is not a passed time (%s)', async (_what, value) => {
    const resource = fresh();
    await redis.set(expiryValueLockKey(resource), value);
    await expect(lockAt().acquire(resource, once('alice'))).rejects.toBeInstanceOf(LockTimeoutError);
    expect(await redis.get(expiryValueLockKey(resource))).toBe(value);
  });

  it('loses a takeover when another GETSET came first, yet overwrites that one’s time (its flaw)', async () => {
    const resource = fresh();
    const key = expiryValueLockKey(resource);
    await redis.set(key, '1000');
    // Between this acquirer's GET and its GETSET, another takes the lock over with a time of its own.
    const other = String(NOW + 5);
    const client = new Proxy(redis, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        const call = (...args: unknown[]) => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (prop !== 'get') return call;
        return async (...args: unknown[]) => {
          const read = await call(...args);
          await redis.set(key, other);
          return read;
        };
      },
    });
    await expect(lockAt(client).acquire(resource, once('alice'))).rejects.toBeInstanceOf(LockTimeoutError);
    expect(await redis.get(key)).toBe(String(NOW + TTL_MS));
  });
});

describe('mysql-lock-table-basic: the course’s lock table', () => {
  let db: DataSource;
  let lock: MysqlBasicTableLock;
  /** Every statement the lock's data source sent since it was last emptied. */
  const sent: string[] = [];
  const rows = async (resource: string) =>
    (await db.query('SELECT server_name FROM tb_lock_basic WHERE lock_name = ?', [resource])) as { server_name: string }[];

  beforeAll(async () => {
    db = createDataSource(servers.current.mysql);
    await db.initialize();
    db.setOptions({ logger: statementLogger((query) => void sent.push(query)) });
    lock = new MysqlBasicTableLock(db);
  });
  afterAll(() => db?.destroy());

  it('sends the statements it lists: one INSERT per attempt, a DELETE by id to release', async () => {
    const resource = fresh();
    sent.length = 0;
    const held = await lock.acquire(resource, once('alice'));
    expect(await rows(resource)).toEqual([{ server_name: 'alice' }]);
    await expect(lock.acquire(resource, once('bob'))).rejects.toBeInstanceOf(LockTimeoutError);
    await held.release();
    const own = sent.filter((q) => !q.startsWith('SELECT'));
    const { acquire, release } = lock.sql();
    expect(own).toEqual([...acquire, ...acquire, ...release]);
    expect(await rows(resource)).toEqual([]);
  });

  it('clear() deletes every row, the only way a dead holder’s lock goes; the old holder’s release then refuses', async () => {
    const resource = fresh();
    const held = await lock.acquire(resource, once('alice'));
    await lock.clear();
    expect(await rows(resource)).toEqual([]);
    const next = await lock.acquire(resource, once('bob'));
    await expect(held.release()).rejects.toBeInstanceOf(LockNotHeldError);
    expect(await rows(resource)).toEqual([{ server_name: 'bob' }]);
    await next.release();
  });

  it('is not reentrant: the holder asking again is refused like anyone else (§4.3)', async () => {
    const resource = fresh();
    const held = await lock.acquire(resource, once('alice'));
    await expect(lock.acquire(resource, once('alice'))).rejects.toBeInstanceOf(LockTimeoutError);
    await held.release();
  });

  /** The lock's data source, with its first INSERT failing with `failure` (after the server applied it when `applied`). */
  function failingFirstInsert(failure: Error, applied: boolean): DataSource {
    let failed = false;
    const managerOf = (m: EntityManager) =>
      new Proxy(m, {
        get(target, prop, receiver) {
          if (prop !== 'query') return Reflect.get(target, prop, receiver) as unknown;
          return async (sql: string, params: unknown[]) => {
            if (failed || !sql.startsWith('INSERT')) return target.query(sql, params);
            failed = true;
            if (applied) await target.query(sql, params);
            throw failure;
          };
        },
      });
    return new Proxy(db, {
      get(target, prop, receiver) {
        if (prop !== 'createQueryRunner') return Reflect.get(target, prop, receiver) as unknown;
        return () => {
          const runner = target.createQueryRunner();
          return new Proxy(runner, { get: (r, p, rcv) => (p === 'manager' ? managerOf(r.manager) : (Reflect.get(r, p, rcv) as unknown)) }) as QueryRunner;
        };
      },
    });
  }
  const mysqlError = (code: string) => Object.assign(new Error(code), { code });

  it.each(['ER_DUP_ENTRY', 'ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT'])('takes %s on the INSERT for “taken”: the next attempt acquires', async (code) => {
    const resource = fresh();
    const held = await new MysqlBasicTableLock(failingFirstInsert(mysqlError(code), false)).acquire(resource, once('alice', { waitMs: 5_000 }));
    expect(await rows(resource)).toEqual([{ server_name: 'alice' }]);
    await held.release();
  });

  it('fails the acquire on any other error, without retrying', async () => {
    const resource = fresh();
    const failure = mysqlError('ER_NO_SUCH_TABLE');
    await expect(new MysqlBasicTableLock(failingFirstInsert(failure, false)).acquire(resource, once('alice', { waitMs: 5_000 }))).rejects.toBe(failure);
    expect(await rows(resource)).toEqual([]);
  });

  it('an INSERT whose reply was lost: a 503, and the row it wrote is deleted by its owner', async () => {
    const resource = fresh();
    const lost = Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true });
    const basic = new MysqlBasicTableLock(failingFirstInsert(lost, true));
    expect(basic.lostAcquire).toBe('released by its owner');
    expect(basic.expiry).toBe('none');
    expect(await downError(basic.acquire(resource, once('alice', { waitMs: 5_000 })))).toBe('mysql');
    expect(await pollUntil(async () => (await rows(resource)).length === 0, 5_000, 20)).toBe(true);
  });

  it('the owner’s give-back deletes only its own row', async () => {
    const resource = fresh();
    const lost = Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true });
    // Another owner's row under another name, and this name's row rewritten to Bob's before the give-back.
    const other = await lock.acquire(`${resource}:other`, once('alice'));
    const basic = new MysqlBasicTableLock(failingFirstInsert(lost, true));
    const outcome = basic.acquire(resource, once('alice', { waitMs: 5_000 })).catch((err: unknown) => err);
    expect(await outcome).toBeInstanceOf(DependencyDownError);
    expect(await pollUntil(async () => (await rows(resource)).length === 0, 5_000, 20)).toBe(true);
    expect(await rows(`${resource}:other`)).toEqual([{ server_name: 'alice' }]);
    await other.release();
  });
});
