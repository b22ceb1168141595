// The etcd locks' pieces that need no etcd (src/locks/etcd/client.ts, lease.ts, mutex.ts): a call's
// deadline never beyond ETCD_CALL_MS, what counts as "etcd is down" (a 503 naming etcd) and what is
// an answer passed on as it is, the prefix range every queue and reset reads, the lease's whole
// seconds and the queue's key. The locks themselves are test/locks/etcd.contract.test.ts's.
import { EventEmitter } from 'node:events';
import { ClientClosedError, GRPCDeadlineExceededError, GRPCUnavailableError, EtcdLeaseInvalidError, type Etcd3 } from 'etcd3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DependencyDownError } from '../../src/dependency.js';
import { callBound, ETCD_CALL_MS, ETCD_LOCK_ROOT, etcdCall, isEtcdDown, openEtcd, prefixRange } from '../../src/locks/etcd/client.js';
import { leaseSeconds } from '../../src/locks/etcd/lease.js';
import { mutexPrefix } from '../../src/locks/etcd/mutex.js';
import { LockTimeoutError } from '../../src/locks/errors.js';
import { LibEtcd3Lock } from '../../src/locks/library/etcd3-lock.js';
import { waitDelete } from '../../src/locks/etcd/wait-delete.js';

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('callBound', () => {
  it('is ETCD_CALL_MS from now by default, an earlier deadline as given, and never later than ETCD_CALL_MS', () => {
    vi.spyOn(Date, 'now').mockReturnValue(50_000);
    expect(callBound()).toEqual({ deadline: 50_000 + ETCD_CALL_MS });
    expect(callBound(50_500)).toEqual({ deadline: 50_500 });
    expect(callBound(50_000 + ETCD_CALL_MS + 1)).toEqual({ deadline: 50_000 + ETCD_CALL_MS });
  });
});

describe('isEtcdDown and etcdCall', () => {
  const breaker = Object.assign(new Error('Execution prevented because the circuit breaker is open'), { name: 'BrokenCircuitError' });
  const down: [string, Error][] = [
    ['unavailable (no server to talk to)', new GRPCUnavailableError('14 UNAVAILABLE: No connection established')],
    ['a deadline passed', new GRPCDeadlineExceededError('4 DEADLINE_EXCEEDED')],
    ['the client closed', new ClientClosedError('kv')],
    ['the circuit breaker open, by name', Object.assign(new Error('open'), { name: 'BrokenCircuitError' })],
    ['the circuit breaker open, by message', new Error('Execution prevented because the Circuit Breaker is open')],
    ['cockatiel’s own error', breaker],
  ];

  for (const [what, err] of down) {
    it(`calls etcd down when ${what}, and etcdCall turns it into a DependencyDownError naming etcd`, async () => {
      expect(isEtcdDown(err)).toBe(true);
      const thrown = await etcdCall(() => Promise.reject(err)).catch((e: unknown) => e);
      expect(thrown).toBeInstanceOf(DependencyDownError);
      expect(thrown).toMatchObject({ dependency: 'etcd', cause: err });
    });
  }

  it('an answer that says no (a lease etcd does not know, any other error, a non-Error) is not etcd down: passed on as it is', async () => {
    for (const err of [new EtcdLeaseInvalidError('requested lease not found'), new Error('etcdserver: key not found'), new TypeError('bad')]) {
      expect(isEtcdDown(err)).toBe(false);
      await expect(etcdCall(() => Promise.reject(err))).rejects.toBe(err);
    }
    expect(isEtcdDown('circuit breaker is open')).toBe(false);
    expect(isEtcdDown(undefined)).toBe(false);
  });

  it('keeps an inner verdict: a DependencyDownError from inside is passed on, not wrapped again', async () => {
    const inner = new DependencyDownError('etcd', new Error('watch stream ended'));
    await expect(etcdCall(() => Promise.reject(inner))).rejects.toBe(inner);
    // Even one whose text would read as etcd down.
    const breaker = new DependencyDownError('etcd', new Error('Execution prevented because the circuit breaker is open'));
    await expect(etcdCall(() => Promise.reject(breaker))).rejects.toBe(breaker);
  });

  it('returns what the call answers', async () => {
    await expect(etcdCall(async () => 42)).resolves.toBe(42);
  });
});

describe('openEtcd', () => {
  it('bounds the connect and every unary call by ETCD_CALL_MS, and leaves streams (watches, keep-alives) unbounded', () => {
    vi.spyOn(Date, 'now').mockReturnValue(70_000);
    const client = openEtcd(['http://127.0.0.1:1']);
    try {
      // The client's options, as the etcd3 package keeps them.
      const { options } = client as unknown as { options: { hosts: string[]; dialTimeout: number; defaultCallOptions: (c: { isStream: boolean }) => unknown } };
      expect(options.hosts).toEqual(['http://127.0.0.1:1']);
      expect(options.dialTimeout).toBe(ETCD_CALL_MS);
      expect(options.defaultCallOptions({ isStream: false })).toEqual({ deadline: 70_000 + ETCD_CALL_MS });
      expect(options.defaultCallOptions({ isStream: true })).toEqual({});
    } finally {
      client.close();
    }
  });
});

describe('prefixRange', () => {
  it('spans every key under the prefix: range_end is the prefix with its last byte plus one, the prefix left as it was', () => {
    const { key, range_end } = prefixRange('stocklab/locks/');
    expect(Buffer.from(key as Buffer).toString()).toBe('stocklab/locks/');
    expect(Buffer.from(range_end as Buffer).toString()).toBe('stocklab/locks0');
    expect(Buffer.compare(key as Buffer, range_end as Buffer)).toBe(-1);
    expect(prefixRange('a').range_end).toEqual(Buffer.from('b'));
  });
});

describe('leaseSeconds', () => {
  it('rounds a TTL up to whole seconds, at least 1: a lease never ends before the ttlMs asked for', () => {
    expect(leaseSeconds(0)).toBe(1);
    expect(leaseSeconds(300)).toBe(1);
    expect(leaseSeconds(1_000)).toBe(1);
    expect(leaseSeconds(1_001)).toBe(2);
    expect(leaseSeconds(30_000)).toBe(30);
  });
});

describe('mutexPrefix', () => {
  it('puts each resource’s queue under the lab’s lock root, the name encoded so one resource’s prefix never holds another’s keys', () => {
    expect(mutexPrefix('stock:1001:001')).toBe(`${ETCD_LOCK_ROOT}mutex/stock%3A1001%3A001/`);
    expect(mutexPrefix('a/b')).toBe(`${ETCD_LOCK_ROOT}mutex/a%2Fb/`);
    expect(mutexPrefix('a').startsWith(ETCD_LOCK_ROOT)).toBe(true);
  });
});

/** A watch builder and its watcher: records how it was built, emits what the test says, counts cancels. */
class StandInWatch {
  readonly built: string[] = [];
  readonly watcher = Object.assign(new EventEmitter(), { cancels: 0, cancel: async () => void watchCancel(this.watcher) });
  asClient(): Etcd3 {
    const builder = {
      key: (k: Buffer) => (this.built.push(`key ${k.toString()}`), builder),
      startRevision: (r: string) => (this.built.push(`from ${r}`), builder),
      only: (what: string) => (this.built.push(`only ${what}`), builder),
      watcher: () => this.watcher,
    };
    return { watch: () => builder } as unknown as Etcd3;
  }
}
const watchCancel = (w: { cancels: number }) => void w.cancels++;

describe('waitDelete', () => {
  it('watches deletes of the key from the revision given, and resolves deleted on one, letting go of the watch', async () => {
    vi.useFakeTimers({ now: 0 });
    const w = new StandInWatch();
    const waiting = waitDelete(w.asClient(), Buffer.from('k'), 12n, 1_000);
    expect(w.built).toEqual(['key k', 'from 12', 'only delete']);
    w.watcher.emit('delete');
    await expect(waiting).resolves.toBe('deleted');
    expect(w.watcher.cancels).toBe(1);
    expect(w.watcher.listenerCount('delete')).toBe(0);
    // A late failure of the cancelled watch is swallowed, not thrown.
    expect(() => w.watcher.emit('error', new Error('late'))).not.toThrow();
    // The deadline's timer is gone with it.
    expect(vi.getTimerCount()).toBe(0);
  });

  it('resolves expired at the deadline, not before', async () => {
    vi.useFakeTimers({ now: 0 });
    const w = new StandInWatch();
    let outcome: string | undefined;
    void waitDelete(w.asClient(), Buffer.from('k'), 1n, 500).then((o) => (outcome = o));
    await vi.advanceTimersByTimeAsync(499);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toBe('expired');
    expect(w.watcher.cancels).toBe(1);
  });

  it('a watch that disconnects or fails is etcd down (a 503 naming etcd), not a wait that goes on', async () => {
    for (const event of ['disconnected', 'error']) {
      const w = new StandInWatch();
      const waiting = waitDelete(w.asClient(), Buffer.from('k'), 1n, Date.now() + 60_000);
      w.watcher.emit(event, new Error('stream gone'));
      await expect(waiting).rejects.toMatchObject({ dependency: 'etcd' });
      await expect(waiting).rejects.toBeInstanceOf(DependencyDownError);
      expect(w.watcher.cancels).toBe(1);
    }
  });

  it('the caller’s abort ends the wait with its reason, whether it comes during the wait or came before it', async () => {
    const w = new StandInWatch();
    const during = new AbortController();
    const waiting = waitDelete(w.asClient(), Buffer.from('k'), 1n, Date.now() + 60_000, during.signal);
    during.abort(new Error('client gone'));
    await expect(waiting).rejects.toThrow('client gone');
    expect(w.watcher.cancels).toBe(1);
    const before = new StandInWatch();
    const aborted = AbortSignal.abort(new Error('already gone'));
    await expect(waitDelete(before.asClient(), Buffer.from('k'), 1n, Date.now() + 60_000, aborted)).rejects.toThrow('already gone');
    expect(before.watcher.cancels).toBe(1);
  });

  it('once settled, a later abort or event changes nothing', async () => {
    const w = new StandInWatch();
    const signal = new AbortController();
    const waiting = waitDelete(w.asClient(), Buffer.from('k'), 1n, Date.now() + 60_000, signal.signal);
    w.watcher.emit('delete');
    signal.abort(new Error('after'));
    await expect(waiting).resolves.toBe('deleted');
    expect(w.watcher.cancels).toBe(1);
  });
});

describe("the etcd3 package's lock (lib-etcd3-lock) when its lease is gone before its put", () => {
  /** A client whose locks fail their first `failures` acquires as etcd refuses a put under an expired lease. */
  function clientFailing(failures: number, err: () => Error) {
    const released: number[] = [];
    let attempts = 0;
    const client = {
      lock: () => {
        const attempt = ++attempts;
        const lock = {
          ttl: () => lock,
          acquire: async () => {
            if (attempt <= failures) throw err();
            return lock;
          },
          release: async () => void released.push(attempt),
        };
        return lock;
      },
    };
    return { client: client as unknown as Etcd3, released, attempts: () => attempts };
  }
  const opts = { owner: 'o', waitMs: 200, ttlMs: 1_000, retryMs: 10 };
  // etcd's answer to a put under a lease it no longer has, as the package raises it
  const leaseGone = () => new EtcdLeaseInvalidError('5 NOT_FOUND: etcdserver: requested lease not found');

  it('tries again, as after a taken attempt, and gets the lock: never a raw error (which answered 500)', async () => {
    const { client, released, attempts } = clientFailing(2, leaseGone);
    const lease = await new LibEtcd3Lock(client).acquire('stock', opts);
    expect(attempts()).toBe(3);
    // each failed attempt's lease (and its keep-alive) is given up
    await vi.waitFor(() => expect(released).toEqual([1, 2]));
    await lease.release();
    expect(released).toEqual([1, 2, 3]);
  });

  it('runs out as a wait does (503 lock_timeout) when every attempt finds its lease gone', async () => {
    const { client } = clientFailing(Number.POSITIVE_INFINITY, leaseGone);
    await expect(new LibEtcd3Lock(client).acquire('stock', opts)).rejects.toBeInstanceOf(LockTimeoutError);
  });

  it('passes any other failure on at once (etcd down is a 503 naming etcd)', async () => {
    const { client, attempts } = clientFailing(1, () => new GRPCUnavailableError('14 UNAVAILABLE: No connection established'));
    await expect(new LibEtcd3Lock(client).acquire('stock', opts)).rejects.toBeInstanceOf(DependencyDownError);
    expect(attempts()).toBe(1);
  });
});
