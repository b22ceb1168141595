// The reentrant hash lock's three scripts (acquire, release, renew) for one resource and owner,
// shared by the reentrant, watchdog and pub/sub variants, which differ only in how they wait
// and whether they renew.
import type { Redis } from 'ioredis';
import { isOne, luaScript } from '../../../redis-client/lua.js';
import { LockNotHeldError } from '../../errors.js';
import { fenceCounterKey, hashLockKey, releaseChannel } from '../keys.js';
import { redisCall } from '../../../redis-client/call.js';
import { undoIfReplyLost } from '../lost-reply.js';

/** Holds-left replies: null when this owner holds nothing, 0 when holds remain, 1 when the last one went. */
const holdsLeft = (raw: unknown): 0 | 1 | null => raw as 0 | 1 | null;

const lockReentrantAcquire = luaScript(
  'lock-reentrant-acquire',
  ['lock', 'fence'],
  ['owner', 'ttlMs'],
  (raw) => raw as [held: number, tokenOrHolderLeaseMs: number],
);
const lockReentrantRelease = luaScript('lock-reentrant-release', ['lock', 'channel'], ['owner', 'ttlMs'], holdsLeft);
/** null when the holder holds nothing; [1, waiter's token] when passed on; [0] when the holder's holds remain. */
const lockReentrantHandoff = luaScript(
  'lock-reentrant-handoff',
  ['lock', 'fence'],
  ['holder', 'waiter', 'holderTtlMs', 'waiterTtlMs'],
  (raw) => raw as [passed: number, token?: number] | null,
);
/** Extends a hash lock's lease while `owner` holds it (the fair lock's too: the same hash): true when extended. */
export const lockReentrantRenew = luaScript('lock-reentrant-renew', ['lock'], ['owner', 'ttlMs'], isOne);

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
    const [held, value] = await undoIfReplyLost(
      () =>
        redisCall(() =>
          lockReentrantAcquire.run(this.redis, { lock: this.key, fence: fenceCounterKey(this.resource) }, { owner: this.owner, ttlMs: this.ttlMs }),
        ),
      () => this.release(),
    );
    return held === 1 ? { held: true, token: BigInt(value) } : { held: false, holderLeaseMs: value };
  }

  /** Gives back one hold; true when that was the last one and the lock is free. */
  async release(): Promise<boolean> {
    const left = await redisCall(() =>
      lockReentrantRelease.run(this.redis, { lock: this.key, channel: releaseChannel(this.resource) }, { owner: this.owner, ttlMs: this.ttlMs }),
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
    const keys = { lock: this.key, fence: fenceCounterKey(this.resource) };
    const args = { holder: this.owner, waiter, holderTtlMs: this.ttlMs, waiterTtlMs };
    const passed = await undoIfReplyLost(
      () => redisCall(() => lockReentrantHandoff.run(this.redis, keys, args)),
      async () => {
        await new HashLockScripts(this.redis, this.resource, waiter, waiterTtlMs).release().catch(notHeldIsAnAnswer);
        await this.release();
      },
    );
    if (passed === null) throw new LockNotHeldError(this.resource);
    return passed[0] === 1 ? BigInt(passed[1] as number) : undefined;
  }

  /** Extends the lease to ttlMs from now; false when this owner no longer holds it. */
  async renew(): Promise<boolean> {
    return redisCall(() => lockReentrantRenew.run(this.redis, { lock: this.key }, { owner: this.owner, ttlMs: this.ttlMs }));
  }
}

function notHeldIsAnAnswer(err: unknown): void {
  if (!(err instanceof LockNotHeldError)) throw err;
}
