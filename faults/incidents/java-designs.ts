// Java lock libraries' incidents the lab cannot run (Redisson is Java): each row rebuilds the
// reported DESIGN in the lab's TypeScript on the lab's real Redis, never the Java library itself.
// Redisson #2665/#5698, #3636 and Curator #727 are already rows of designs.ts / curator.ts; this
// module adds Redisson #7272 (a watchdog renewal that outlives unlock()).
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { HashLockScripts } from '../../src/locks/redis/hash/hash-lock-scripts.js';
import { WatchdogLock } from '../../src/locks/redis/hash/watchdog.js';
import { hashLockKey } from '../../src/locks/redis/keys.js';
import { connectRedis, waitReady } from '../../src/redis-client/connect.js';
import { commandName } from '../../src/redis-client/lua.js';
import { pollUntil, within } from '../../src/time.js';
import type { FaultContext } from '../scenario.js';
import { holdCall } from './held-call.js';
import { type Incident, LAB, type Trial, type TrialSpec } from './incident.js';

const LEASE_MS = 300;
/** Renewals the orphan must receive after unlock() before the case calls it kept alive. */
const RENEWALS_AFTER_UNLOCK = 3;
const SEEN_MS = 4_000;

async function openRedis(ctx: FaultContext): Promise<Redis> {
  const redis = connectRedis(ctx.cluster.info.redis, { commandTimeoutMs: 2_000 });
  if (!(await waitReady(redis, SEEN_MS))) {
    redis.disconnect();
    throw new Error('Redis did not answer within the bound');
  }
  return redis;
}

/**
 * Redisson's ordering as #7272 describes it, on the lab's own reentrant-lock scripts: the watchdog
 * is armed from a callback on the acquire's reply, and unlock() cancels whatever watchdog is armed
 * when it runs, then releases. Nothing orders the two. The lab holds the acquire's script back, the
 * caller gives up and unlocks (the cancel finds nothing, the release finds no hold), then lets the
 * acquire through: its reply arms a watchdog no one will cancel.
 */
export const replyArmedWatchdogOrphan: TrialSpec = {
  pkg: `${LAB} watchdog armed from the acquire's reply (Redisson's ordering, rebuilt)`,
  async run(ctx): Promise<Omit<Trial, 'pkg' | 'version'>> {
    const redis = await openRedis(ctx);
    const resource = `incident-redisson-7272-${randomUUID()}`;
    let watchdog: NodeJS.Timeout | undefined;
    let renewals = 0;
    try {
      const a = new HashLockScripts(redis, resource, 'A', LEASE_MS);
      const acquireCall = holdCall(redis, commandName('lock-reentrant-acquire'), () => true);
      // scheduleExpirationRenewal: run from the acquire's reply, as tryAcquireAsync's thenApply does
      const acquiring = a.tryAcquire().then((attempt) => {
        if (attempt.held)
          watchdog = setInterval(() => {
            void a.renew().then(
              (extended) => {
                if (extended) renewals += 1;
              },
              () => undefined,
            );
          }, LEASE_MS / 3);
        return attempt;
      });
      if (!(await within(acquireCall.held, SEEN_MS))) throw new Error("the acquire's script was not sent within the bound");
      // unlock(): cancelExpirationRenewal finds no watchdog yet, then the release script finds no hold
      clearInterval(watchdog);
      // as Redisson's unlock() does (IllegalMonitorStateException), the release refuses: no hold yet
      const releasedAHold = await a.release().catch(() => false);
      await acquireCall.open();
      const acquired = (await acquiring).held;
      const renewedAfterUnlock = await pollUntil(() => renewals >= RENEWALS_AFTER_UNLOCK, SEEN_MS, 20);
      const keyExists = (await redis.exists(hashLockKey(resource))) === 1;
      const pttl = await redis.pttl(hashLockKey(resource));
      const b = await new HashLockScripts(redis, resource, 'B', LEASE_MS).tryAcquire();
      const orphan = acquired && keyExists && renewedAfterUnlock && !b.held;
      return {
        reproduced: orphan,
        measured: {
          en: `unlock() ran first (released a hold: ${releasedAHold}); the acquire landed after it and its reply armed the watchdog: ${renewals} renewals after unlock(), the key ${keyExists ? `still there (PTTL ${pttl} ms)` : 'gone'}, B ${b.held ? 'got the lock' : 'refused'}`,
          zh: `unlock() 先执行（是否释放了持有：${releasedAHold}）；加锁在它之后才落地，其回复启动了看门狗：unlock() 之后续期 ${renewals} 次，键${keyExists ? `仍在（PTTL ${pttl} ms）` : '已不在'}，B ${b.held ? '拿到了锁' : '被拒绝'}`,
        },
        facts: { releasedAHold, renewalsAfterUnlock: renewals, keyExists, nextTakerGotIt: b.held },
      };
    } finally {
      clearInterval(watchdog);
      await redis.del(hashLockKey(resource)).catch(() => undefined);
      redis.disconnect();
    }
  },
};

/**
 * The lab's redis-watchdog: a lease exists only once acquire() has resolved (no unlock can run
 * before the watchdog is armed), release() stops the watchdog before its script, and a renewal
 * extends only while the owner's hold is there. A renewal held back past release() finds no hold:
 * the key is gone and the next taker gets the lock at once.
 */
export const labWatchdogNoOrphan: TrialSpec = {
  pkg: `${LAB} redis-watchdog`,
  async run(ctx): Promise<Omit<Trial, 'pkg' | 'version'>> {
    const redis = await openRedis(ctx);
    const resource = `incident-redisson-7272-${randomUUID()}`;
    try {
      const renewal = holdCall(redis, commandName('lock-reentrant-renew'), () => true);
      const lease = await new WatchdogLock(redis).acquire(resource, { owner: 'A', ttlMs: LEASE_MS, waitMs: 2_000, retryMs: 20 });
      if (!(await within(renewal.held, SEEN_MS))) throw new Error('no renewal was sent within the bound');
      await lease.release();
      await renewal.open();
      const keyExists = (await redis.exists(hashLockKey(resource))) === 1;
      const t0 = Date.now();
      // waitMs 0: one attempt, so "at once" is what Redis answers, not a wait for an expiry
      const next = await new WatchdogLock(redis).acquire(resource, { owner: 'B', ttlMs: LEASE_MS, waitMs: 0, retryMs: 20 }).then(
        (l) => ({ granted: true as const, l }),
        () => ({ granted: false as const }),
      );
      const nextTakerMs = Date.now() - t0;
      if (next.granted) await next.l.release();
      const orphan = keyExists || !next.granted;
      return {
        reproduced: orphan,
        measured: {
          en: `a renewal held back until release() finished, then let through: the key ${keyExists ? 'was still there' : 'was gone'}; B ${next.granted ? `got the lock in ${nextTakerMs} ms` : 'was refused'}`,
          zh: `一次续期被扣住直到 release() 完成，再放行：键${keyExists ? '仍在' : '已不在'}；B ${next.granted ? `${nextTakerMs} ms 内拿到了锁` : '被拒绝'}`,
        },
        facts: { keyExists, nextTakerGotIt: next.granted, nextTakerMs },
      };
    } finally {
      await redis.del(hashLockKey(resource)).catch(() => undefined);
      redis.disconnect();
    }
  },
};

export const JAVA_DESIGN_INCIDENTS: readonly Incident[] = [
  {
    id: 'redisson-7272',
    library: 'Redisson RLock (Java)',
    reported: { repo: 'redisson/redisson', refs: ['#7272', 'PR #7277 (open)'] },
    symptom: {
      en: 'The watchdog is armed from a callback on the acquire\'s reply and cancelled from one on unlock\'s; "nothing orders the two", so after an interrupted acquire the lock "stays in Redis with its TTL refreshed indefinitely" with no holder.',
      zh: '看门狗在加锁回复的回调里启动、在 unlock 回复的回调里取消，“两者之间没有任何顺序保证”；于是加锁被中断之后，这把锁“留在 Redis 里，TTL 被无限续期”，却没有任何持锁者。',
    },
    built: {
      en: "Not the Java library: Redisson's ordering rebuilt on the lab's reentrant-lock scripts (a watchdog armed from the acquire's reply, lease 300 ms, renewed every 100 ms). The lab holds the acquire's script back, unlocks (its cancel finds no watchdog, its release no hold), then lets the acquire through and waits for 3 renewals; B then tries once. The lab's redis-watchdog cannot be unlocked before it holds; under the nearest fault (a renewal held back until release() finished) its key is gone and B takes the lock at once.",
      zh: '不是 Java 库本身：在实验台的可重入锁脚本上重建 Redisson 的执行顺序（看门狗在加锁回复里启动，租约 300 ms，每 100 ms 续期）。实验台扣住加锁脚本，先 unlock（取消时找不到看门狗，释放时找不到持有），再放行加锁，等它续期 3 次；然后 B 尝试一次。实验台的 redis-watchdog 在拿到锁之前无法解锁；在最接近的故障下（一次续期被扣住直到 release() 完成），键已不在，B 立刻拿到锁。',
    },
    affected: replyArmedWatchdogOrphan,
    lab: [labWatchdogNoOrphan],
  },
];
