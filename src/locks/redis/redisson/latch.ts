// Redisson's RCountDownLatch (course §2.10.7): a count in Redis, armed once and counted down; at 0
// its key goes and every waiter is told by pub/sub.
import type { Redis } from 'ioredis';
import { redisCall } from '../../../redis-client/call.js';
import { isOne, luaScript } from '../../../redis-client/lua.js';
import { RECHECK_MS, waitOnChannel } from '../wait/channel-wait.js';
import { latchKeys } from '../keys.js';
import type { ReleaseNotifier } from '../wait/release-notifier.js';

const latchTrySet = luaScript('latch-try-set', ['count'], ['count'], isOne);
/** The count left (0 also when it was already open). */
const latchCountDown = luaScript('latch-count-down', ['count', 'channel'], [], (raw) => raw as number);

/**
 * docs/course.md §2.10.7, Redisson's RCountDownLatch: a count in Redis. trySetCount arms it once
 * (the first call wins); each countDown takes one off, and at 0 the latch opens: its key goes and
 * every waiter is told by pub/sub. await returns once it is open (a latch never armed is open).
 */
export class CountDownLatch {
  constructor(
    private readonly redis: Redis,
    private readonly notifier: ReleaseNotifier,
  ) {}

  /** Arms the latch with `count` unless it is armed; true when this call armed it. */
  async trySetCount(name: string, count: number): Promise<boolean> {
    return redisCall(() => latchTrySet.run(this.redis, latchKeys(name), { count }));
  }

  /** One fewer; returns the count left (0: open). */
  async countDown(name: string): Promise<number> {
    return redisCall(() => latchCountDown.run(this.redis, latchKeys(name), {}));
  }

  async count(name: string): Promise<number> {
    return Number((await redisCall(() => this.redis.get(latchKeys(name).count))) ?? 0);
  }

  /** Resolves once the latch is open; LockTimeoutError after waitMs. */
  async await(name: string, opts: { waitMs: number; signal?: AbortSignal }): Promise<void> {
    await waitOnChannel(
      this.notifier,
      { resource: `latch ${name}`, waitMs: opts.waitMs, signal: opts.signal, channel: latchKeys(name).channel, wakes: 'all', recheckMs: RECHECK_MS },
      async () => ((await this.count(name)) <= 0 ? { done: true, value: undefined } : { done: false, hintMs: -1 }),
    );
  }
}
