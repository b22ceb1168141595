// The reentrant hash lock's three scripts (acquire, release, renew) for one resource and owner,
// shared by the reentrant, watchdog and pub/sub variants, which differ only in how they wait
// and whether they renew.
import type { Redis } from 'ioredis';
import { runLua } from '../../../redis-client/lua.js';
import { LockNotHeldError } from '../../errors.js';
import { fenceCounterKey, hashLockKey, releaseChannel } from '../keys.js';
import { redisCall } from '../../../redis-client/call.js';
import { undoIfReplyLost } from '../lost-reply.js';

export type HashLockAttempt = { held: true; token: bigint } | { held: false; holderLeaseMs: number };

export class HashLockScripts {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    readonly resource: string,
    readonly owner: string,
    private readonly ttlMs: number,
  ) {
    this.key = hashLockKey(resource);
  }

  /** Held (first time or re-entered) with the grant's fencing token, or busy with the holder's remaining lease in ms (−1: none). */
  async tryAcquire(): Promise<HashLockAttempt> {
    // A lost reply may hide a hold: give it back (the release is owner-checked).
    const [held, value] = (await undoIfReplyLost(
      () => redisCall(() => runLua(this.redis, 'lock-reentrant-acquire', [this.key, fenceCounterKey(this.resource)], [this.owner, this.ttlMs])),
      () => this.release(),
    )) as [number, number];
    return held === 1 ? { held: true, token: BigInt(value) } : { held: false, holderLeaseMs: value };
  }

  /** Gives back one hold; true when that was the last one and the lock is free. */
  async release(): Promise<boolean> {
    const left = await redisCall(() =>
      runLua(this.redis, 'lock-reentrant-release', [this.key, releaseChannel(this.resource)], [this.owner, this.ttlMs]),
    );
    if (left === null) throw new LockNotHeldError(this.resource);
    return left === 1;
  }

  /**
   * Gives back this owner's last hold straight to `waiter` (see handoff.ts): the waiter's fencing
   * token when it now holds the lock, undefined when holds of this owner remain (nothing passed on).
   * Rejects with LockNotHeldError when this owner holds nothing. A lost reply leaves both sides
   * unsure, so both are given back (owner-checked, announced): the waiter attempts again as usual.
   */
  async handOff(waiter: string, waiterTtlMs: number): Promise<bigint | undefined> {
    const keys = [this.key, fenceCounterKey(this.resource)];
    const passed = (await undoIfReplyLost(
      () => redisCall(() => runLua(this.redis, 'lock-reentrant-handoff', keys, [this.owner, waiter, this.ttlMs, waiterTtlMs])),
      async () => {
        await new HashLockScripts(this.redis, this.resource, waiter, waiterTtlMs).release().catch(notHeldIsAnAnswer);
        await this.release();
      },
    )) as [number, number?] | null;
    if (passed === null) throw new LockNotHeldError(this.resource);
    return passed[0] === 1 ? BigInt(passed[1] as number) : undefined;
  }

  /** Extends the lease to ttlMs from now; false when this owner no longer holds it. */
  async renew(): Promise<boolean> {
    return (await redisCall(() => runLua(this.redis, 'lock-reentrant-renew', [this.key], [this.owner, this.ttlMs]))) === 1;
  }
}

function notHeldIsAnAnswer(err: unknown): void {
  if (!(err instanceof LockNotHeldError)) throw err;
}
