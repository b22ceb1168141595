// An etcd lease kept alive by its holder (src/locks/etcd/lease.ts) over a stand-in client and a
// clock the test moves (fake timers): the TTL asked in whole seconds and the one etcd granted
// followed, a keep-alive every third of it on one stream, `lost` when a keep-alive finds the lease
// gone or none is answered within the TTL, a stream that fails replaced on the next tick, and the
// revoke. The lease against a real etcd is test/locks/etcd.contract.test.ts's.
import { EventEmitter } from 'node:events';
import type { Etcd3 } from 'etcd3';
import { GRPCUnavailableError } from 'etcd3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DependencyDownError } from '../../src/dependency.js';
import { EtcdLease } from '../../src/locks/etcd/lease.js';

/** The keep-alive stream: records what is written, answers when the test says. */
class StandInStream extends EventEmitter {
  readonly written: string[] = [];
  ended = false;
  write(req: { ID: string }): void {
    this.written.push(req.ID);
  }
  end(): void {
    this.ended = true;
  }
  answer(ttl: string): void {
    this.emit('data', { TTL: ttl });
  }
}

class StandInEtcd {
  readonly grants: { TTL: number; deadline: number | undefined }[] = [];
  readonly revokes: string[] = [];
  readonly streams: StandInStream[] = [];
  grantedTtl = '3';
  revokeError: Error | undefined;
  streamError: Error | undefined;
  readonly leaseClient = {
    leaseGrant: async (req: { TTL: number }, options: { deadline?: number }) => {
      this.grants.push({ TTL: req.TTL, deadline: options.deadline });
      return { ID: '255', TTL: this.grantedTtl };
    },
    leaseRevoke: async (req: { ID: string }) => {
      this.revokes.push(req.ID);
      if (this.revokeError) throw this.revokeError;
      return {};
    },
    leaseKeepAlive: async () => {
      if (this.streamError) throw this.streamError;
      const stream = new StandInStream();
      this.streams.push(stream);
      return stream;
    },
  };
  asClient(): Etcd3 {
    return this as unknown as Etcd3;
  }
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Moves the clock, running the timers and promises due meanwhile. */
const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('EtcdLease', () => {
  it('asks for whole seconds with the caller’s deadline, and keeps the granted TTL: a keep-alive every third of it, on one stream', async () => {
    const etcd = new StandInEtcd();
    const lease = await EtcdLease.grant(etcd.asClient(), 2_500, 1_000_500);
    expect(etcd.grants).toEqual([{ TTL: 3, deadline: 1_000_500 }]);
    expect(lease.id).toBe('255');
    expect(lease.hexId).toBe('ff');
    await advance(999);
    expect(etcd.streams).toHaveLength(0);
    await advance(1);
    expect(etcd.streams).toHaveLength(1);
    expect(etcd.streams[0]!.written).toEqual(['255']);
    etcd.streams[0]!.answer('3');
    await advance(1_000);
    expect(etcd.streams).toHaveLength(1);
    expect(etcd.streams[0]!.written).toEqual(['255', '255']);
    await lease.revoke();
  });

  it('follows a longer TTL etcd granted: not lost before it, a keep-alive at a third of it', async () => {
    const etcd = new StandInEtcd();
    etcd.grantedTtl = '6';
    const lease = await EtcdLease.grant(etcd.asClient(), 1_000);
    expect(etcd.grants[0]!.TTL).toBe(1);
    await advance(1_999);
    expect(etcd.streams).toHaveLength(0);
    await advance(1);
    expect(etcd.streams).toHaveLength(1);
    // Unanswered: lost once the granted 6 s are over, not at the 1 s asked for.
    await advance(3_999);
    expect(lease.lost.aborted).toBe(false);
    await advance(1);
    expect(lease.lost.aborted).toBe(true);
    expect(lease.lost.reason).toBe('no keep-alive succeeded within the lease TTL');
    // Lost stops the keep-alives and ends the stream.
    expect(etcd.streams[0]!.ended).toBe(true);
    const written = etcd.streams[0]!.written.length;
    await advance(10_000);
    expect(etcd.streams[0]!.written).toHaveLength(written);
  });

  it('each answered keep-alive extends the lease by the TTL from when it was sent', async () => {
    const etcd = new StandInEtcd();
    const lease = await EtcdLease.grant(etcd.asClient(), 3_000);
    await advance(1_000); // keep-alive 1 sent at +1 s
    await advance(500);
    etcd.streams[0]!.answer('3'); // answered at +1.5 s: valid until +4 s
    await advance(1_000); // keep-alive 2 sent at +2 s, never answered
    await advance(1_499); // +3.999 s
    expect(lease.lost.aborted).toBe(false);
    await advance(1); // +4 s
    expect(lease.lost.aborted).toBe(true);
  });

  it('a keep-alive answered with TTL 0 (etcd no longer knows the lease) is lost at once, naming the lease', async () => {
    const etcd = new StandInEtcd();
    const lease = await EtcdLease.grant(etcd.asClient(), 3_000);
    await advance(1_000);
    etcd.streams[0]!.answer('0');
    expect(lease.lost.aborted).toBe(true);
    expect(lease.lost.reason).toBe('lease 255 is gone (a keep-alive found it expired or revoked)');
    const other = await EtcdLease.grant(etcd.asClient(), 3_000);
    await advance(1_000);
    etcd.streams[1]!.answer('-1');
    expect(other.lost.aborted).toBe(true);
  });

  it('a stream that fails or ends is replaced on the next tick, its unanswered keep-alives forgotten', async () => {
    const etcd = new StandInEtcd();
    const lease = await EtcdLease.grant(etcd.asClient(), 3_000);
    await advance(1_000); // +1 s: the first stream
    etcd.streams[0]!.answer('3'); // valid until +4 s
    etcd.streams[0]!.emit('error', new Error('stream reset'));
    await advance(1_000); // +2 s: a second stream; its keep-alive is never answered
    expect(etcd.streams).toHaveLength(2);
    expect(etcd.streams[1]!.written).toEqual(['255']);
    etcd.streams[1]!.emit('end');
    await advance(1_000); // +3 s: a third
    expect(etcd.streams).toHaveLength(3);
    // This answer is to the keep-alive sent at +3 s, not to the lost one of +2 s: valid until +6 s.
    etcd.streams[2]!.answer('3');
    await advance(2_999);
    expect(lease.lost.aborted).toBe(false);
    await advance(1);
    expect(lease.lost.aborted).toBe(true);
  });

  it('a stream that cannot be opened is tried again on the next tick', async () => {
    const etcd = new StandInEtcd();
    const lease = await EtcdLease.grant(etcd.asClient(), 3_000);
    etcd.streamError = new GRPCUnavailableError('14 UNAVAILABLE');
    await advance(1_000);
    expect(etcd.streams).toHaveLength(0);
    etcd.streamError = undefined;
    await advance(1_000);
    expect(etcd.streams).toHaveLength(1);
    expect(etcd.streams[0]!.written).toEqual(['255']);
    etcd.streams[0]!.answer('3');
    await advance(1_500);
    expect(lease.lost.aborted).toBe(false);
    await lease.revoke();
  });

  it('an old stream’s late error or end does not drop the current one', async () => {
    const etcd = new StandInEtcd();
    const lease = await EtcdLease.grant(etcd.asClient(), 3_000);
    await advance(1_000);
    etcd.streams[0]!.answer('3');
    etcd.streams[0]!.emit('end');
    await advance(1_000);
    expect(etcd.streams).toHaveLength(2);
    etcd.streams[1]!.answer('3');
    etcd.streams[0]!.emit('error', new Error('late'));
    etcd.streams[0]!.emit('end');
    await advance(1_000);
    expect(etcd.streams).toHaveLength(2);
    expect(etcd.streams[1]!.written).toEqual(['255', '255']);
    expect(lease.lost.aborted).toBe(false);
    await lease.revoke();
  });

  it('revoke stops the keep-alives, ends the stream and revokes; a lease etcd no longer knows is already revoked; other failures are passed on', async () => {
    const etcd = new StandInEtcd();
    const lease = await EtcdLease.grant(etcd.asClient(), 3_000);
    await advance(1_000);
    await lease.revoke();
    expect(etcd.revokes).toEqual(['255']);
    expect(etcd.streams[0]!.ended).toBe(true);
    await advance(10_000);
    expect(etcd.streams[0]!.written).toEqual(['255']);
    expect(lease.lost.aborted).toBe(false);

    etcd.revokeError = new Error('etcdserver: requested lease not found');
    await expect((await EtcdLease.grant(etcd.asClient(), 3_000)).revoke()).resolves.toBeUndefined();
    etcd.revokeError = new GRPCUnavailableError('14 UNAVAILABLE');
    const down = await EtcdLease.grant(etcd.asClient(), 3_000);
    await expect(down.revoke()).rejects.toBeInstanceOf(DependencyDownError);
    await expect(down.revokeQuietly()).resolves.toBeUndefined();
    etcd.revokeError = new Error('permission denied');
    await expect((await EtcdLease.grant(etcd.asClient(), 3_000)).revoke()).rejects.toThrow('permission denied');
  });

  it('a keep-alive whose stream failed to open after the revoke schedules none after it', async () => {
    const etcd = new StandInEtcd();
    let fail: (() => void) | undefined;
    let opens = 0;
    etcd.leaseClient.leaseKeepAlive = () => {
      opens++;
      return new Promise<StandInStream>((_resolve, reject) => (fail = () => reject(new GRPCUnavailableError('14 UNAVAILABLE'))));
    };
    const lease = await EtcdLease.grant(etcd.asClient(), 3_000);
    await advance(1_000);
    expect(opens).toBe(1);
    await lease.revoke();
    fail!();
    await advance(10_000);
    expect(opens).toBe(1);
  });

  it('a stream that opens after the revoke is ended at once and written nothing', async () => {
    const etcd = new StandInEtcd();
    let open: (() => void) | undefined;
    const realOpen = etcd.leaseClient.leaseKeepAlive;
    etcd.leaseClient.leaseKeepAlive = () => new Promise<StandInStream>((resolve) => (open = () => void realOpen().then(resolve)));
    const lease = await EtcdLease.grant(etcd.asClient(), 3_000);
    await advance(1_000);
    await lease.revoke();
    open!();
    await advance(0);
    expect(etcd.streams).toHaveLength(1);
    expect(etcd.streams[0]!.ended).toBe(true);
    expect(etcd.streams[0]!.written).toEqual([]);
  });
});
