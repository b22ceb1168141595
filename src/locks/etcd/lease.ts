// An etcd lease kept alive by its holder: granted, renewed at a third of its TTL on a keep-alive
// stream of its own, revoked on release. `lost` fires once the holder can no longer count on it.
import { LeaseClock } from '../lease-clock.js';
import type { Etcd3, IDuplexStream, ILeaseKeepAliveRequest, ILeaseKeepAliveResponse } from 'etcd3';
import { callBound, etcdCall } from './client.js';

/**
 * etcd counts a lease's TTL in whole seconds, at least 1: ttlMs is rounded up, so a lease never ends
 * before the ttlMs asked for. etcd itself may grant more (it lengthens a TTL below its minimum lease
 * TTL, derived from the election timeout); the grant says how much, and the keep-alive follows that.
 */
export function leaseSeconds(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs / 1000));
}

export class EtcdLease {
  private readonly clock: LeaseClock;
  private stream: IDuplexStream<ILeaseKeepAliveRequest, ILeaseKeepAliveResponse> | undefined;
  /** When each keep-alive still unanswered was sent, oldest first: the stream answers in order. */
  private readonly unanswered: number[] = [];

  private constructor(
    private readonly client: Etcd3,
    /** The lease's ID, as etcd's API takes it (a decimal int64). */
    readonly id: string,
    private readonly ttlMs: number,
    sentAt: number,
  ) {
    this.clock = new LeaseClock(
      ttlMs,
      sentAt,
      () => void this.keepAlive(),
      'no keep-alive succeeded within the lease TTL',
      () => {
        this.stream?.end();
        this.stream = undefined;
      },
    );
  }

  /** Grants a lease of leaseSeconds(ttlMs) and starts keeping it alive. */
  static async grant(client: Etcd3, ttlMs: number, deadline?: number): Promise<EtcdLease> {
    const sentAt = Date.now();
    const granted = await etcdCall(() => client.leaseClient.leaseGrant({ TTL: leaseSeconds(ttlMs) }, callBound(deadline)));
    return new EtcdLease(client, granted.ID, Number(granted.TTL) * 1000, sentAt);
  }

  /** The ID in hex, as etcd's concurrency package names a lock key after it. */
  get hexId(): string {
    return BigInt(this.id).toString(16);
  }

  /** Aborted when a keep-alive finds the lease gone, or none succeeded within its TTL. */
  get lost(): AbortSignal {
    return this.clock.lost;
  }

  /** Stops keeping it alive and revokes it, deleting every key attached to it. */
  async revoke(): Promise<void> {
    this.clock.stop();
    try {
      await etcdCall(() => this.client.leaseClient.leaseRevoke({ ID: this.id }, callBound()));
    } catch (err) {
      // Already gone (expired, or revoked by someone else): nothing left to end.
      if (err instanceof Error && /requested lease not found/.test(err.message)) return;
      throw err;
    }
  }

  /** Revokes it, ignoring failures: a lease that stays behind ends with its TTL. */
  revokeQuietly(): Promise<void> {
    return this.revoke().catch(() => undefined);
  }

  private async keepAlive(): Promise<void> {
    try {
      const stream = this.stream ?? (await this.openStream());
      if (this.clock.stopped) return;
      this.unanswered.push(Date.now());
      stream.write({ ID: this.id });
    } catch {
      // No stream now (etcd unreachable): the next tick tries again, and the expiry timer decides.
    }
    if (!this.clock.stopped) this.clock.schedule();
  }

  private async openStream(): Promise<IDuplexStream<ILeaseKeepAliveRequest, ILeaseKeepAliveResponse>> {
    const stream = await this.client.leaseClient.leaseKeepAlive();
    if (this.clock.stopped) {
      stream.end();
      return stream;
    }
    this.unanswered.length = 0;
    stream.on('data', (res) => {
      const sentAt = this.unanswered.shift() ?? Date.now();
      // TTL 0: etcd no longer knows the lease (it expired, or was revoked).
      if (res.TTL === '0' || Number(res.TTL) <= 0) return this.clock.lose(`lease ${this.id} is gone (a keep-alive found it expired or revoked)`);
      this.clock.validUntil(sentAt + this.ttlMs);
    });
    stream.on('error', () => {
      if (this.stream === stream) this.stream = undefined;
    });
    stream.on('end', () => {
      if (this.stream === stream) this.stream = undefined;
    });
    this.stream = stream;
    return stream;
  }
}
