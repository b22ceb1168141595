// etcd's concurrency recipe (src/locks/etcd/mutex.ts) over a small in-memory etcd that records every
// call: a first acquirer holds after one transaction (no read of the queue, no watch, no recheck),
// a retried put finds its own key, a waiter watches the key before its own and rechecks its own
// after, a wait that runs out reads no more, and a release deletes its key even when the lease's
// revoke fails. The recipe against a real etcd (exclusion, leases, the flaw) is the contract's.
import { EventEmitter } from 'node:events';
import { ClientClosedError, SortOrder, type Etcd3 } from 'etcd3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearEtcdLocks, ETCD_CALL_MS, ETCD_LOCK_ROOT } from '../../src/locks/etcd/client.js';
import { EtcdMutexLock, EtcdMutexNoRecheckLock, mutexPrefix } from '../../src/locks/etcd/mutex.js';
import { DependencyDownError } from '../../src/dependency.js';
import { LockLostError, LockNotHeldError, LockTimeoutError } from '../../src/locks/errors.js';
import type { AcquireOptions } from '../../src/locks/lock.js';

interface Kv {
  create: number;
  value: string;
  lease: string;
}
type Range = { key: Buffer; range_end?: Buffer; sort_order?: number | string; limit?: number; max_create_revision?: string };

/** Keys with create revisions, leases that own keys, delete watches; `log` names each call. */
class MiniEtcd {
  revision = 100;
  readonly keys = new Map<string, Kv>();
  readonly log: string[] = [];
  private nextLease = 0x10;
  revokeError: Error | undefined;
  private readonly watchers: { key: string; w: EventEmitter }[] = [];

  private select(r: Range): [string, Kv][] {
    const from = r.key.toString();
    const to = r.range_end?.toString();
    let hits = [...this.keys.entries()].filter(([k]) => (to === undefined ? k === from : k >= from && k < to));
    if (r.max_create_revision !== undefined) hits = hits.filter(([, v]) => v.create <= Number(r.max_create_revision));
    hits.sort(([, a], [, b]) => a.create - b.create);
    if (r.sort_order === SortOrder.Descend || r.sort_order === 'Descend') hits.reverse();
    return r.limit ? hits.slice(0, r.limit) : hits;
  }
  private kvs(r: Range) {
    return this.select(r).map(([k, v]) => ({ key: Buffer.from(k), value: Buffer.from(v.value), create_revision: String(v.create), lease: v.lease }));
  }
  private remove(key: string): void {
    if (!this.keys.delete(key)) return;
    this.revision++;
    for (const { key: watched, w } of this.watchers) if (watched === key) w.emit('delete');
  }
  put(key: string, value: string, lease: string): void {
    this.revision++;
    const existing = this.keys.get(key);
    this.keys.set(key, { create: existing?.create ?? this.revision, value, lease });
  }
  /** The lease ID (decimal) the next grant hands out. */
  get nextLeaseId(): string {
    return String(this.nextLease);
  }

  readonly kv = {
    txn: async (req: {
      compare: { key: Buffer; create_revision: number | string }[];
      success: Record<string, unknown>[];
      failure?: Record<string, unknown>[];
    }) => {
      this.log.push('txn');
      const succeeded = req.compare.every((c) => String(this.keys.get(c.key.toString())?.create ?? 0) === String(c.create_revision));
      const ops = (succeeded ? req.success : req.failure) ?? [];
      const responses = ops.map((op) => {
        if (op.request_put) {
          const p = op.request_put as { key: Buffer; value: Buffer; lease: string };
          this.put(p.key.toString(), p.value.toString(), p.lease);
          return { response_put: {} };
        }
        if (op.request_delete_range) {
          this.remove((op.request_delete_range as { key: Buffer }).key.toString());
          return { response_delete_range: {} };
        }
        return { response_range: { kvs: this.kvs(op.request_range as Range) } };
      });
      return { succeeded, header: { revision: String(this.revision) }, responses };
    },
    range: async (req: Range) => {
      this.log.push('range');
      return { kvs: this.kvs(req), header: { revision: String(this.revision) } };
    },
    deleteRange: async (req: Range, options: { deadline: number }) => {
      this.log.push(`deleteRange until ${options.deadline}`);
      for (const [k] of this.select(req)) this.remove(k);
      return {};
    },
  };

  readonly leaseClient = {
    leaseGrant: async (req: { TTL: number }) => {
      this.log.push('grant');
      return { ID: String(this.nextLease++), TTL: String(req.TTL) };
    },
    leaseRevoke: async (req: { ID: string }) => {
      this.log.push('revoke');
      if (this.revokeError) throw this.revokeError;
      this.revokeServerSide(req.ID);
      return {};
    },
    leaseKeepAlive: async () => Object.assign(new EventEmitter(), { write: () => undefined, end: () => undefined }),
  };

  /** Ends a lease on the server (expired, or revoked by someone else): its keys go with it. */
  revokeServerSide(id: string): void {
    for (const [k, v] of [...this.keys.entries()]) if (v.lease === id) this.remove(k);
  }

  watch() {
    const watchers = this.watchers;
    const log = this.log;
    let key = '';
    const builder = {
      key: (k: Buffer) => ((key = k.toString()), builder),
      startRevision: () => builder,
      only: () => builder,
      watcher: () => {
        log.push(`watch ${key}`);
        const w = Object.assign(new EventEmitter(), { cancel: async () => undefined });
        watchers.push({ key, w });
        return w;
      },
    };
    return builder;
  }

  asClient(): Etcd3 {
    return this as unknown as Etcd3;
  }
}

const opts = (owner: string, waitMs: number): AcquireOptions => ({ owner, ttlMs: 30_000, retryMs: 10, waitMs });
const keyOf = (resource: string, leaseId: string) => `${mutexPrefix(resource)}${BigInt(leaseId).toString(16)}`;

afterEach(() => {
  vi.useRealTimers();
});

describe('etcd-lock over an in-memory etcd', () => {
  it('says what it is: fencing by create revision, a lease that expires, a lost acquire released by its owner', () => {
    const lock = new EtcdMutexLock(new MiniEtcd().asClient());
    expect(lock).toMatchObject({ fencing: 'etcd', expiry: 'lease', lostAcquire: 'released by its owner' });
  });

  it('a first acquirer holds after one transaction: no read of the queue, no watch, no recheck; its token is its key’s create revision', async () => {
    const etcd = new MiniEtcd();
    const lock = new EtcdMutexLock(etcd.asClient());
    const id = etcd.nextLeaseId;
    const lease = await lock.acquire('r', opts('A', 1_000));
    expect(etcd.log).toEqual(['grant', 'txn']);
    expect(await lease.fencingToken?.()).toBe(BigInt(etcd.keys.get(keyOf('r', id))!.create));
    await lease.release();
    expect(etcd.keys.size).toBe(0);
  });

  it('a put retried after a lost reply finds its own key, keeps its place and its revision', async () => {
    const etcd = new MiniEtcd();
    const id = etcd.nextLeaseId;
    // The first put went through; its reply was lost.
    etcd.put(keyOf('r', id), 'A', id);
    const created = etcd.keys.get(keyOf('r', id))!.create;
    const lease = await new EtcdMutexLock(etcd.asClient()).acquire('r', opts('A', 50));
    expect(await lease.fencingToken?.()).toBe(BigInt(created));
    expect(etcd.keys.get(keyOf('r', id))!.create).toBe(created);
    expect(etcd.log).toEqual(['grant', 'txn']);
    await lease.release();
  });

  it('a waiter watches the key queued just before its own, then rechecks its own key, and holds with a larger token', async () => {
    const etcd = new MiniEtcd();
    const lock = new EtcdMutexLock(etcd.asClient());
    const a = await lock.acquire('r', opts('A', 1_000));
    const idB = etcd.nextLeaseId;
    etcd.log.length = 0;
    const waiting = lock.acquire('r', opts('B', 60_000));
    await vi.waitFor(() => expect(etcd.log.some((l) => l.startsWith('watch'))).toBe(true));
    expect(etcd.log).toEqual(['grant', 'txn', 'range', `watch ${keyOf('r', String(Number(idB) - 1))}`]);
    await a.release();
    const b = await waiting;
    expect(etcd.log.slice(-1)).toEqual(['range']);
    expect(await b.fencingToken?.()).toBeGreaterThan(await a.fencingToken!());
    await b.release();
  });

  it('a waiter whose key went while it waited is refused, naming its key; without the recheck it is told it holds', async () => {
    for (const Lock of [EtcdMutexLock, EtcdMutexNoRecheckLock]) {
      const etcd = new MiniEtcd();
      const lock = new Lock(etcd.asClient());
      const a = await lock.acquire('r', opts('A', 1_000));
      const idB = etcd.nextLeaseId;
      const waiting = lock.acquire('r', opts('B', 60_000));
      const outcome = waiting.then(
        () => 'holds',
        (err: unknown) => err,
      );
      await vi.waitFor(() => expect(etcd.log.some((l) => l.startsWith('watch'))).toBe(true));
      etcd.revokeServerSide(idB); // B's lease ended while it waited: its key with it
      await a.release();
      if (Lock === EtcdMutexLock) {
        const err = await outcome;
        expect(err).toBeInstanceOf(LockLostError);
        expect((err as Error).message).toContain(`key ${keyOf('r', idB)} was deleted while waiting (its lease expired or was revoked)`);
      } else {
        expect(await outcome).toBe('holds');
      }
    }
  });

  it('with no wait left, a waiter gives up before watching; a wait that runs out while watching reads nothing more', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const etcd = new MiniEtcd();
    const lock = new EtcdMutexLock(etcd.asClient());
    await lock.acquire('r', opts('A', 1_000));
    etcd.log.length = 0;
    const now = lock.acquire('r', opts('B', 0)).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10);
    expect(await now).toBeInstanceOf(LockTimeoutError);
    expect(etcd.log).toEqual(['grant', 'txn', 'range', 'revoke']);
    etcd.log.length = 0;
    const later = lock.acquire('r', opts('C', 100)).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(100);
    expect(await later).toBeInstanceOf(LockTimeoutError);
    expect(etcd.log.filter((l) => l === 'range')).toHaveLength(1);
    expect(etcd.log.at(-1)).toBe('revoke');
  });

  it('a release deletes its key even when the lease’s revoke then fails', async () => {
    const etcd = new MiniEtcd();
    const lock = new EtcdMutexLock(etcd.asClient());
    const lease = await lock.acquire('r', opts('A', 1_000));
    etcd.revokeError = new Error('etcdserver: request timed out');
    await lease.release();
    expect(etcd.keys.size).toBe(0);
  });

  it('a release that cannot reach etcd after the lease was lost says the lock was not held; before the loss, that etcd is down', async () => {
    vi.useFakeTimers();
    const etcd = new MiniEtcd();
    const streams: EventEmitter[] = [];
    etcd.leaseClient.leaseKeepAlive = async () => {
      const stream = Object.assign(new EventEmitter(), { write: () => undefined, end: () => undefined });
      streams.push(stream);
      return stream;
    };
    const lock = new EtcdMutexLock(etcd.asClient());
    const down = () => Promise.reject(new ClientClosedError('KV'));
    const held = await lock.acquire('r', { ...opts('A', 1_000), ttlMs: 3_000 });
    const lost = await lock.acquire('s', { ...opts('B', 1_000), ttlMs: 3_000 });
    // the first keep-alive, at a third of the TTL, opens each lease's stream; etcd answers B's: gone
    await vi.advanceTimersByTimeAsync(1_000);
    expect(streams).toHaveLength(2);
    streams[1]?.emit('data', { TTL: '0' });
    expect([held.lost.aborted, lost.lost.aborted]).toEqual([false, true]);
    etcd.kv.txn = down;
    await expect(lost.release()).rejects.toBeInstanceOf(LockNotHeldError);
    await expect(held.release()).rejects.toBeInstanceOf(DependencyDownError);
  });
});

describe('clearEtcdLocks', () => {
  it('deletes every key under the lab’s lock root, within the call bound, and nothing else', async () => {
    vi.useFakeTimers({ now: 5_000 });
    const etcd = new MiniEtcd();
    etcd.put(`${ETCD_LOCK_ROOT}mutex/r/1`, 'A', '1');
    etcd.put(`${ETCD_LOCK_ROOT}lib/x`, 'B', '2');
    etcd.put('other/key', 'C', '3');
    await clearEtcdLocks(etcd.asClient());
    expect([...etcd.keys.keys()]).toEqual(['other/key']);
    expect(etcd.log).toEqual([`deleteRange until ${5_000 + ETCD_CALL_MS}`]);
  });
});
