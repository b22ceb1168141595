// RedLock's hand-off counted vote by vote (redlock.ts's majorityOf), on three Redis servers of its
// own: a master that cannot be reached votes against at once, and the hand-off holds once a bare
// majority moved, or gives up once a majority cannot. The order of the votes is built, not raced:
// a command on a connection closed by the test is refused before it is sent, so its vote is counted
// (in the same turn of the event loop) before any live master's reply can arrive.
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DependencyDownError } from '../../src/dependency.js';
import { LockLostError, LockNotHeldError } from '../../src/locks/errors.js';
import type { Lease, LockOptions } from '../../src/locks/lock.js';
import { deleteLockKeys, redlockKey } from '../../src/locks/redis/keys.js';
import { Redlock } from '../../src/locks/redis/redlock/package.js';
import { RedlockLock } from '../../src/locks/redis/redlock/redlock.js';
import { pollUntil } from '../../src/time.js';
import { openRedis } from '../support/redis-client.js';
import { withServers } from '../support/servers.js';

const servers = withServers({ redis: 3 });
const R = 'redlock-quorum';
const opts = (o: Partial<LockOptions> = {}): LockOptions => ({ ttlMs: 10_000, waitMs: 5_000, retryMs: 1_000, ...o });

/** The lock's own connections to the masters (the test closes some), and the test's, which stay open. */
let clients: Redis[];
let readers: Redis[];
let redlock: Redlock;
let lock: RedlockLock;
const take = (owner: string, o?: Partial<LockOptions>): Promise<Lease> => lock.acquire(R, { ...opts(o), owner });
const values = () => Promise.all(readers.map((c) => c.get(redlockKey(R))));

beforeEach(async () => {
  clients = await Promise.all(servers.current.redis.map(openRedis));
  readers = await Promise.all(servers.current.redis.map(openRedis));
  await Promise.all(readers.map((c) => deleteLockKeys(c)));
  redlock = new Redlock(clients, { retryCount: 0 });
  lock = new RedlockLock(redlock);
});

afterEach(async () => {
  await Promise.all(readers.map((c) => deleteLockKeys(c)));
  for (const c of [...clients, ...readers]) c.disconnect();
});

/**
 * A holds on every master (its acquire returns at a quorum; the last vote may land after), and B
 * sleeps between attempts, offered for the hand-off: A holds here, so B does not attempt first.
 */
async function heldByAWithBAsleep(): Promise<{ a: Lease; aValue: string; b: Promise<Lease | unknown> }> {
  const a = await take('A');
  let held: (string | null)[] = [];
  expect(await pollUntil(async () => (held = await values())[0] !== null && new Set(held).size === 1, 2_000, 5)).toBe(true);
  const b = take('B').then(
    (lease) => lease,
    (err: unknown) => err,
  );
  expect(await pollUntil(() => lock.handoffs.sleeping(R) === 1, 3_000, 2)).toBe(true);
  return { a, aValue: held[0] as string, b };
}

describe('RedLock’s hand-off, vote by vote', () => {
  it('one master of three unreachable: its refusal comes first, and the two that moved are a majority: B is handed the lock', async () => {
    const { a, aValue, b } = await heldByAWithBAsleep();
    clients[2]!.disconnect();
    // Passed on: A's release is the hand-off, and it succeeded.
    await expect(a.release()).resolves.toBeUndefined();
    const handed = await b;
    expect(handed).toHaveProperty('release');
    const [m0, m1, m2] = await values();
    expect(m0).not.toBe(aValue);
    expect(m1).toBe(m0);
    // The master the lock could not reach still holds A's value, until its lease ends.
    expect(m2).toBe(aValue);
    await (handed as Lease).release();
    expect((await values()).slice(0, 2)).toEqual([null, null]);
  });

  it('two masters of three unreachable: a majority cannot move, so nothing is handed and what moved is given back', async () => {
    const { a, aValue, b } = await heldByAWithBAsleep();
    clients[1]!.disconnect();
    clients[2]!.disconnect();
    // Decided by the two refusals alone: the live master's vote is given back once it answers.
    const released = await a.release().then(
      () => 'released',
      (err: unknown) => err,
    );
    expect(released).toBeInstanceOf(DependencyDownError);
    // B, woken with nothing, attempts on its own and finds a majority unreachable.
    expect(await b).toBeInstanceOf(DependencyDownError);
    expect(await values()).toEqual([null, aValue, aValue]);
  });
});

describe('RedLock’s hand-off, what it gives back', () => {
  it('moved nowhere (A’s value gone from every master): it sends no give-back, only A’s own release, which finds nothing', async () => {
    const { a, aValue, b } = await heldByAWithBAsleep();
    // A's lease ran out on every master while B slept.
    await Promise.all(readers.map((c) => c.del(redlockKey(R))));
    const release = vi.spyOn(redlock, 'release');
    await expect(a.release()).rejects.toBeInstanceOf(LockNotHeldError);
    // The package's releases, by the value each frees: A's own, and no give-back of B's value that no master took.
    expect(release.mock.calls.map(([hold]) => hold.value)).toEqual([aValue]);
    // B, woken with nothing, takes the free lock by its own attempt.
    const own = await b;
    expect(own).toHaveProperty('release');
    await (own as Lease).release();
    release.mockRestore();
  });
});

describe('RedLock’s validity with a drift allowance as long as the lease', () => {
  it('leaves no validity ever (ttl − ttl × 1 − 2 ms): the hand-off passes nothing, and B’s own grant is refused (LockLostError)', async () => {
    // A takes the lock with the usual 1 %; then the allowance is the whole lease (driftFactor 1), so
    // the validity the hand-off and the package compute for B, start + ttl − ttl − 2 ms, has ended
    // before any master answers, however fast. A drift added instead of taken off would leave B
    // twice its lease.
    const { a, b } = await heldByAWithBAsleep();
    (redlock.settings as { driftFactor: number }).driftFactor = 1;
    await a.release().catch(() => undefined);
    expect(await b).toBeInstanceOf(LockLostError);
  });
});
