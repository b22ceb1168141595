// redis-semaphore's Mutex (SET NX PX, then a refresh every refreshInterval) under a holder stalled
// past its lease. A refreshInterval longer than the lockTimeout stands for the stall: the package
// does not refuse it, and the holder's process then behaves as one whose event loop stopped between
// two refreshes (a breakpoint, a standby, a long GC), with no timing left to chance.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pollUntil, within } from '../../src/time.js';
import type { FaultContext } from '../scenario.js';
import { holdCall } from './held-call.js';
import { LAB, type Trial, type TrialSpec } from './incident.js';
import { commandName } from '../../src/redis-client/lua.js';
import { connectRedis, waitReady } from '../../src/redis-client/connect.js';
import { WatchdogLock } from '../../src/locks/redis/hash/watchdog.js';

interface MutexLike {
  acquire(): Promise<void>;
  release(): Promise<void>;
  readonly identifier: string;
  readonly isAcquired: boolean;
}
interface MutexOptions {
  lockTimeout: number;
  refreshInterval: number;
  onLockLost?: (err: Error) => void;
}
type MutexClass = new (redis: Redis, key: string, opts: MutexOptions) => MutexLike;

/** The holder's lease, and the refresh that comes after it ran out (the stall). */
const LEASE_MS = 500;
const REFRESH_MS = 1_500;
/** How long the lab waits for something it knows will happen (the key to expire, the refresh to run). */
const SEEN_MS = 4_000;

async function mutexOf(pkg: string): Promise<MutexClass> {
  const mod = (await import(pkg)) as { Mutex: MutexClass };
  return mod.Mutex;
}

interface Stalled {
  redis: Redis;
  a: MutexLike;
  /** Where the package keeps the lock: `mutex:<key>`. */
  stored: string;
  lost: { at: number; message: string }[];
}

/** A acquires with a lease shorter than its refresh; returns once Redis has expired A's key. */
async function stalledHolder(ctx: FaultContext, pkg: string, tag: string): Promise<Stalled> {
  const Mutex = await mutexOf(pkg);
  const redis = new Redis(ctx.cluster.info.redis, { maxRetriesPerRequest: 1 });
  const key = `incident:${tag}:${randomUUID()}`;
  const stored = `mutex:${key}`;
  const lost: Stalled['lost'] = [];
  const a = new Mutex(redis, key, {
    lockTimeout: LEASE_MS,
    refreshInterval: REFRESH_MS,
    onLockLost: (err) => lost.push({ at: Date.now(), message: err.message }),
  });
  await a.acquire();
  if (!(await pollUntil(async () => (await redis.exists(stored)) === 0, SEEN_MS, 10)))
    throw new Error(`${stored} did not expire after its ${LEASE_MS} ms lease`);
  return { redis, a, stored, lost };
}

async function cleanUp(s: Stalled): Promise<void> {
  await s.a.release().catch(() => undefined); // stops A's refresh timer
  await s.redis.del(s.stored);
  s.redis.disconnect();
}

/** #175: B takes and releases the lock while A is stalled; A's late refresh then finds no key. */
export function lateRefreshOn(pkg: string): TrialSpec {
  return {
    pkg,
    async run(ctx): Promise<Omit<Trial, 'pkg' | 'version'>> {
      const Mutex = await mutexOf(pkg);
      const s = await stalledHolder(ctx, pkg, '175');
      try {
        const b = new Mutex(s.redis, s.stored.slice('mutex:'.length), { lockTimeout: 5_000, refreshInterval: 0 });
        await b.acquire();
        await b.release();
        // A's refresh is due REFRESH_MS after its acquire: its verdict is a reported loss or the key back.
        await pollUntil(async () => s.lost.length > 0 || (await s.redis.exists(s.stored)) === 1, SEEN_MS, 10);
        const keyHoldsA = (await s.redis.get(s.stored)) === s.a.identifier;
        const loss = s.lost[0]?.message.replace(s.stored, 'mutex:KEY');
        const reproduced = keyHoldsA && s.lost.length === 0 && s.a.isAcquired;
        return {
          reproduced,
          measured: reproduced
            ? { en: 'the late refresh re-created the key: A holds it again, no loss reported', zh: '迟到的续期把键重新建了出来：A 又持有了锁，没有报告丢锁' }
            : {
                en: `the late refresh reported the loss (${loss ?? 'none'}); key ${keyHoldsA ? 'back' : 'gone'}`,
                zh: `迟到的续期报告了丢锁（${loss ?? '无'}）；键${keyHoldsA ? '又回来了' : '已不在'}`,
              },
          facts: { lossReported: s.lost.length, aStillAcquired: s.a.isAcquired, keyHoldsA },
        };
      } finally {
        await cleanUp(s);
      }
    },
  };
}

/** #9 / #24: B acquires while A is stalled; both say they hold it until A's late refresh tells A. */
export function twoHoldersOn(pkg: string): TrialSpec {
  return {
    pkg,
    async run(ctx): Promise<Omit<Trial, 'pkg' | 'version'>> {
      const Mutex = await mutexOf(pkg);
      const s = await stalledHolder(ctx, pkg, '9');
      const b = new Mutex(s.redis, s.stored.slice('mutex:'.length), { lockTimeout: 5_000, refreshInterval: 0 });
      try {
        await b.acquire();
        const bAt = Date.now();
        const bothHold = s.a.isAcquired && b.isAcquired;
        await pollUntil(() => s.lost.length > 0, SEEN_MS, 10);
        const toldAfterMs = s.lost[0] ? s.lost[0].at - bAt : null;
        return {
          reproduced: bothHold,
          measured: {
            en: `${bothHold ? 'A and B both held the lock' : 'only B held the lock'}; A was told ${toldAfterMs === null ? 'never' : `${toldAfterMs} ms after B took it`} (onLockLost)`,
            zh: `${bothHold ? 'A 和 B 同时持有锁' : '只有 B 持有锁'}；A ${toldAfterMs === null ? '一直没有' : `在 B 拿到锁 ${toldAfterMs} ms 后`}得知（onLockLost）`,
          },
          facts: { bothHold, toldAfterMs: toldAfterMs ?? -1 },
        };
      } finally {
        await b.release().catch(() => undefined);
        await cleanUp(s);
      }
    },
  };
}

/** Waits for `p` at most `ms`: false when it did not settle in time. */
/**
 * #205: a refresh already sent when release() runs, answered after it. The refresh (an EVALSHA of
 * the expire-if-equal script with its 3 arguments) is held back until release() has finished; its
 * "0" then reaches a holder that let go on purpose. 5.5.0 reports the lock lost; 5.5.1 and later do not.
 */
export function releaseDuringRefreshOn(pkg: string): TrialSpec {
  return {
    pkg,
    async run(ctx): Promise<Omit<Trial, 'pkg' | 'version'>> {
      const Mutex = await mutexOf(pkg);
      const redis = new Redis(ctx.cluster.info.redis, { maxRetriesPerRequest: 1 });
      const key = `incident:205:${randomUUID()}`;
      const lost: string[] = [];
      // evalsha(sha, numkeys, key, identifier, lockTimeout): the refresh; the release passes one argument
      // fewer. The second refresh is held: the first, on a server without the script, falls back to
      // EVAL (which loads it), and the call held must be the one that answers.
      const refresh = holdCall(redis, 'evalsha', (args) => args.length === 5, 1);
      try {
        const a = new Mutex(redis, key, { lockTimeout: 10_000, refreshInterval: 100, onLockLost: (err) => lost.push(err.message) });
        await a.acquire();
        if (!(await within(refresh.held, SEEN_MS))) throw new Error('no refresh was sent within the bound');
        await a.release();
        const keyGone = (await redis.exists(`mutex:${key}`)) === 0;
        await refresh.open();
        const reproduced = lost.length > 0;
        return {
          reproduced,
          measured: reproduced
            ? {
                en: `release() finished (key gone: ${keyGone}); the refresh answered after it, and onLockLost fired: ${lost[0]?.replace(key, 'KEY')}`,
                zh: `release() 已完成（键已删除：${keyGone}）；之后才回来的续期结果触发了 onLockLost：${lost[0]?.replace(key, 'KEY')}`,
              }
            : {
                en: `release() finished (key gone: ${keyGone}); the refresh answered after it, and no loss was reported`,
                zh: `release() 已完成（键已删除：${keyGone}）；之后才回来的续期结果没有引发丢锁报告`,
              },
          facts: { lossReported: lost.length, keyGone },
        };
      } finally {
        await redis.del(`mutex:${key}`);
        redis.disconnect();
      }
    },
  };
}

/** The lab's watchdog under the same order: its renewal held back until its release has finished. */
export const labWatchdogReleaseDuringRenewal: TrialSpec = {
  pkg: `${LAB} redis-watchdog`,
  async run(ctx): Promise<Omit<Trial, 'pkg' | 'version'>> {
    const redis = connectRedis(ctx.cluster.info.redis, { commandTimeoutMs: 2_000 });
    const resource = `incident-205-${randomUUID()}`;
    // renewed every ttl/3
    const renewal = holdCall(redis, commandName('lock-reentrant-renew'), () => true);
    try {
      if (!(await waitReady(redis, SEEN_MS))) throw new Error('Redis did not answer within the bound');
      const lease = await new WatchdogLock(redis).acquire(resource, { owner: 'incident-205', ttlMs: 300, waitMs: 2_000, retryMs: 20 });
      if (!(await within(renewal.held, SEEN_MS))) throw new Error('no renewal was sent within the bound');
      await lease.release();
      await renewal.open();
      const reproduced = lease.lost.aborted;
      return {
        reproduced,
        measured: {
          en: `release() finished; the renewal answered after it, and the lease ${reproduced ? 'reported itself lost' : 'reported nothing'}`,
          zh: `release() 已完成；之后才回来的续期结果${reproduced ? '让租约报告了丢锁' : '没有引发任何报告'}`,
        },
        facts: { lostAborted: reproduced },
      };
    } finally {
      redis.disconnect();
    }
  },
};
