// node-redlock #296 (#283, #299, and #169 by its fix's author): with retries, acquire() takes the
// time once, before its first attempt, and counts the lock's expiration from it. An acquire that
// wins on a later attempt returns a lock whose expiration has already passed, while Redis holds a
// full lease: extend() and using()'s auto-extension then fail with "Cannot extend an already-expired
// lock". Built by sequencing: another holder's key stands until the lease asked for has passed
// since the first attempt, then goes; the next attempt wins.
import { randomUUID } from 'node:crypto';
import { Redlock as FixedRedlock } from '@sesamecare-oss/redlock';
import { Redis } from 'ioredis';
import { redlockKey } from '../../src/locks/redis/keys.js';
import { RedlockLock } from '../../src/locks/redis/redlock/redlock.js';
import { Redlock } from '../../src/locks/redis/redlock/package.js';
import { sleep } from '../../src/time.js';
import type { FaultContext } from '../scenario.js';
import { LAB, type Trial, type TrialSpec } from './incident.js';

/** The lease asked for, the retries, and when the other holder lets go (after the lease has passed). */
const LEASE_MS = 1_000;
const RETRIES = { retryCount: 20, retryDelay: 200, retryJitter: 0 };
const OTHER_HOLDS_MS = 1_500;

interface PackageLock {
  expiration: number;
  extend(duration: number): Promise<unknown>;
  release(): Promise<unknown>;
}
interface PackageRedlock {
  acquire(resources: string[], duration: number, settings: typeof RETRIES): Promise<PackageLock>;
  on(event: 'error', listener: () => void): unknown;
}

function facts(leftMs: number, pttlMs: number, extended: string) {
  return { validityLeftMs: leftMs, redisPttlMs: pttlMs, extend: extended };
}

/** The package's acquire with retries, won on an attempt after the lease has passed since the first. */
function expiredAcquireOn(pkg: string, make: (redis: Redis) => PackageRedlock): TrialSpec {
  return {
    pkg,
    async run(ctx: FaultContext): Promise<Omit<Trial, 'pkg' | 'version'>> {
      const redis = new Redis(ctx.cluster.info.redis, { maxRetriesPerRequest: 1 });
      const resource = `incident:296:${randomUUID()}`;
      try {
        await redis.set(resource, 'another holder', 'PX', 10_000);
        const redlock = make(redis);
        redlock.on('error', () => undefined); // each refused attempt is also emitted
        const pending = redlock.acquire([resource], LEASE_MS, RETRIES);
        await sleep(OTHER_HOLDS_MS);
        await redis.del(resource);
        const lock = await pending;
        const leftMs = lock.expiration - Date.now();
        const pttlMs = await redis.pttl(resource);
        const extended = await lock.extend(LEASE_MS).then(
          () => 'extended',
          (err: Error) => err.message,
        );
        await lock.release().catch(() => undefined);
        const reproduced = leftMs < 0 && pttlMs > 0;
        return {
          reproduced,
          measured: {
            en: `acquire() returned a lock ${leftMs < 0 ? `already expired ${-leftMs} ms ago` : `valid for ${leftMs} ms`} while Redis held it for ${pttlMs} ms more; extend(): ${extended}`,
            zh: `acquire() 返回的锁${leftMs < 0 ? `已经过期 ${-leftMs} ms` : `还有 ${leftMs} ms 有效时间`}，而 Redis 里这把锁还剩 ${pttlMs} ms；extend()：${extended}`,
          },
          facts: facts(leftMs, pttlMs, extended),
        };
      } finally {
        await redis.del(resource);
        redis.disconnect();
      }
    },
  };
}

export const betaExpiredAcquire = expiredAcquireOn('redlock', (redis) => new Redlock([redis], { driftFactor: 0.01 }));
export const fixedExpiredAcquire = expiredAcquireOn(
  '@sesamecare-oss/redlock',
  (redis) => new FixedRedlock([redis], { driftFactor: 0.01 }) as unknown as PackageRedlock,
);

/**
 * The lab's redlock lock under the same sequence: it attempts once per try (the package without
 * retries), so each attempt's own start counts, and it refuses a hold with no validity left. Its
 * lease must still be live after the moment using()'s auto-extension would have failed.
 */
export const labRedlockAcquire: TrialSpec = {
  pkg: `${LAB} redlock`,
  async run(ctx: FaultContext): Promise<Omit<Trial, 'pkg' | 'version'>> {
    const redis = new Redis(ctx.cluster.info.redis, { maxRetriesPerRequest: 1 });
    const resource = `incident:296:${randomUUID()}`;
    const key = redlockKey(resource);
    try {
      await redis.set(key, 'another holder', 'PX', 10_000);
      const redlock = new Redlock([redis], { driftFactor: 0.01 });
      redlock.on('error', () => undefined);
      const pending = new RedlockLock(redlock).acquire(resource, { owner: 'incident-296', ttlMs: LEASE_MS, waitMs: 5_000, retryMs: RETRIES.retryDelay });
      await sleep(OTHER_HOLDS_MS);
      await redis.del(key);
      const lease = await pending;
      const pttlMs = await redis.pttl(key);
      await sleep(50); // using()'s extension, scheduled at a negative delay, would have fired by now
      const lost = lease.lost.aborted;
      await lease.release().catch(() => undefined);
      return {
        reproduced: lost,
        measured: {
          en: `the lease ${lost ? 'was already lost' : 'was live'} 50 ms after the acquire, Redis holding it for ${pttlMs} ms more`,
          zh: `拿到锁 50 ms 后租约${lost ? '已经丢了' : '仍然有效'}，Redis 里这把锁还剩 ${pttlMs} ms`,
        },
        facts: { lostAfter50Ms: lost, redisPttlMs: pttlMs },
      };
    } finally {
      await redis.del(key);
      redis.disconnect();
    }
  },
};
