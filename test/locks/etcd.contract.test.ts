// The etcd locks under the lock contract, against an etcd of its own: the concurrency recipe, the
// same recipe without its check after the wait (etcd issue 11456), and the etcd3 package's lock.
// Then the flaw itself, sequenced step by step, the recipe's fencing tokens, and a down etcd.
import { randomUUID } from 'node:crypto';
import type { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DependencyDownError } from '../../src/dependency.js';
import { ETCD_CALL_MS, openEtcd, prefixRange } from '../../src/locks/etcd/client.js';
import { EtcdMutexLock, EtcdMutexNoRecheckLock, mutexPrefix } from '../../src/locks/etcd/mutex.js';
import { LockLostError, LockNotHeldError, LockTimeoutError } from '../../src/locks/errors.js';
import { LibEtcd3Lock, etcd3LockKey } from '../../src/locks/library/etcd3-lock.js';
import type { AcquireOptions, Lease, Lock } from '../../src/locks/lock.js';
import { withLock } from '../../src/locks/scope.js';
import { freePorts } from '../../src/cluster/ports.js';
import { pollUntil, sleep } from '../../src/time.js';
import { isSettled } from '../support/deferred.js';
import { lockContract } from '../support/lock-contract.js';
import { withServers } from '../support/servers.js';

const servers = withServers({ etcd: true });

/** The keys under a recipe lock's prefix, oldest first: the queue, holder at its head. */
async function queueOf(client: Etcd3, resource: string): Promise<{ key: string; lease: string }[]> {
  const res = await client.kv.range({ ...prefixRange(mutexPrefix(resource)), sort_target: 'Create', sort_order: 'Ascend' });
  return res.kvs.map((kv) => ({ key: kv.key.toString(), lease: kv.lease }));
}

/** Revokes a lease behind its holder's back, as its expiry would (a paused process, a keep-alive that cannot get through). */
const revoke = (client: Etcd3, lease: string) => client.leaseClient.leaseRevoke({ ID: lease });

function recipe(name: string, make: (client: Etcd3) => Lock): void {
  lockContract(name, { reentrant: false, lateRelease: 'refuses', lost: 'fires' }, async () => {
    const client = openEtcd([servers.current.etcd]);
    return {
      lock: make(client),
      // Every key of the resource goes, as with a reset (POST /stock/reset).
      takeAway: async (resource) => void (await client.kv.deleteRange(prefixRange(mutexPrefix(resource)))),
      // The holder's lease ends on the server; its next keep-alive (a third of its TTL) finds it gone.
      loseHold: async (resource) => {
        for (const { lease } of await queueOf(client, resource)) await revoke(client, lease);
      },
      close: async () => client.close(),
    };
  });
}

recipe('etcd-lock', (client) => new EtcdMutexLock(client));
// Without a lease lost while waiting, the flawed step behaves as the recipe: the flaw is shown below.
recipe('etcd-lock-no-recheck', (client) => new EtcdMutexNoRecheckLock(client));

// The package's release revokes its lease without saying whether the key was still ours (no
// lateRelease claim), and its Lock never tells of a lost lease.
lockContract('lib-etcd3-lock', { reentrant: false, lost: 'never' }, async () => {
  const client = openEtcd([servers.current.etcd]);
  return {
    lock: new LibEtcd3Lock(client),
    takeAway: async (resource) => void (await client.kv.deleteRange({ key: Buffer.from(etcd3LockKey(resource)) })),
    close: async () => client.close(),
  };
});

describe('etcd recipe, with and without the check after the wait (etcd issue 11456)', () => {
  let client: Etcd3;
  let admin: Etcd3;
  beforeAll(() => {
    client = openEtcd([servers.current.etcd]);
    admin = openEtcd([servers.current.etcd]);
  });
  afterAll(() => {
    client.close();
    admin.close();
  });
  const as = (owner: string, waitMs = 10_000): AcquireOptions => ({ ttlMs: 30_000, waitMs, retryMs: 10, owner });

  /**
   * H holds; W queues behind it; W's lease is revoked while it waits (its key goes with it); then
   * H releases. Returns W's acquire, settled, and the resource.
   */
  async function waiterLosesItsLease(lock: Lock): Promise<{ resource: string; waiter: PromiseSettledResult<Lease> }> {
    const resource = `recheck-${randomUUID()}`;
    const holder = await lock.acquire(resource, as('H'));
    const waiting = lock.acquire(resource, as('W'));
    // Sequenced: W's key is queued behind H's.
    expect(await pollUntil(async () => (await queueOf(admin, resource)).length === 2, 5_000, 10)).toBe(true);
    const [h, w] = await queueOf(admin, resource);
    await revoke(admin, w!.lease);
    // W's key is gone with its lease, H's is not, and W is still waiting for H.
    expect((await queueOf(admin, resource)).map((k) => k.key)).toEqual([h!.key]);
    expect(await isSettled(waiting)).toBe(false);
    await holder.release();
    const [waiter] = await Promise.allSettled([waiting]);
    return { resource, waiter: waiter! };
  }

  it('etcd-lock: the waiter finds its own key gone and is refused (LockLostError); the next acquirer gets the lock alone', async () => {
    const lock = new EtcdMutexLock(client);
    const { resource, waiter } = await waiterLosesItsLease(lock);
    expect(waiter.status).toBe('rejected');
    expect(waiter.status === 'rejected' && waiter.reason).toBeInstanceOf(LockLostError);
    const next = await lock.acquire(resource, as('X', 2_000));
    await expect(lock.acquire(resource, as('Y', 200))).rejects.toBeInstanceOf(LockTimeoutError);
    await next.release();
  });

  it('etcd-lock-no-recheck (the flaw): the waiter is told it holds the lock while its key is gone, and another acquirer gets it too: two holders', async () => {
    const lock = new EtcdMutexNoRecheckLock(client);
    const { resource, waiter } = await waiterLosesItsLease(lock);
    expect(waiter.status).toBe('fulfilled');
    // W "holds" with no key standing for it: the queue is empty.
    expect(await queueOf(admin, resource)).toEqual([]);
    // So X finds no key before its own and holds the lock at once, beside W.
    const second = await lock.acquire(resource, as('X', 200));
    expect((await queueOf(admin, resource)).length).toBe(1);
    await second.release();
    if (waiter.status === 'fulfilled') await expect(waiter.value.release()).rejects.toBeInstanceOf(LockNotHeldError);
  });

  it('etcd-lock: the fencing token (the key’s create revision) grows with every grant', async () => {
    const lock = new EtcdMutexLock(client);
    const resource = `fencing-${randomUUID()}`;
    const tokens: bigint[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => withLock(lock, resource, as(`o${i}`), async (held) => void tokens.push(await held.fencingToken!()))),
    );
    expect(tokens).toHaveLength(20);
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]!, `grant ${i}`).toBeGreaterThan(tokens[i - 1]!);
  });

  it('a waiter whose wait runs out leaves the queue: its key is gone and the ones behind it are not blocked', async () => {
    const lock = new EtcdMutexLock(client);
    const resource = `leave-${randomUUID()}`;
    const holder = await lock.acquire(resource, as('H'));
    await expect(lock.acquire(resource, as('W', 200))).rejects.toBeInstanceOf(LockTimeoutError);
    expect(await pollUntil(async () => (await queueOf(admin, resource)).length === 1, 5_000, 10)).toBe(true);
    const behind = lock.acquire(resource, as('B', 5_000));
    await holder.release();
    await (await behind).release();
  });
});

describe('etcd down: a fast refusal naming etcd', () => {
  let client: Etcd3;
  beforeAll(async () => {
    // A port nobody listens on.
    const [port] = await freePorts(1);
    client = openEtcd([`http://127.0.0.1:${port}`]);
  });
  afterAll(() => client.close());

  it.each([
    ['etcd-lock', () => new EtcdMutexLock(client)],
    ['lib-etcd3-lock', () => new LibEtcd3Lock(client)],
  ] as const)('%s rejects with DependencyDownError(etcd) within the call bound', async (_name, make) => {
    const t0 = Date.now();
    const err = await make()
      .acquire(`down-${randomUUID()}`, { ttlMs: 5_000, waitMs: 30_000, retryMs: 10, owner: 'A' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(DependencyDownError);
    expect((err as DependencyDownError).dependency).toBe('etcd');
    expect(Date.now() - t0).toBeLessThan(ETCD_CALL_MS + 1_000);
  });
});

// Not a contract case: a short ttlMs still makes a lease of whole seconds (etcd may lengthen it to
// its minimum lease TTL), and the keep-alive, at a third of what was granted, holds it past that.
it('a lease asked for 300 ms is granted whole seconds, and kept alive past them', async () => {
  const client = openEtcd([servers.current.etcd]);
  try {
    const lock = new EtcdMutexLock(client);
    const resource = `ttl-${randomUUID()}`;
    const lease = await lock.acquire(resource, { ttlMs: 300, waitMs: 1_000, retryMs: 10, owner: 'A' });
    const [{ lease: id } = { lease: '0' }] = await queueOf(client, resource);
    const granted = Number((await client.leaseClient.leaseTimeToLive({ ID: id })).grantedTTL);
    expect(granted).toBeGreaterThanOrEqual(1);
    await sleep(granted * 1000 + 500);
    expect(lease.lost.aborted).toBe(false);
    expect((await queueOf(client, resource)).length).toBe(1);
    await lease.release();
  } finally {
    client.close();
  }
});
