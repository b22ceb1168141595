// RedLock (course §2.9) over N independent Redis masters, through the `redlock` package.
import { connectRedlockMasters } from '../redis-client/connect.js';
import { deleteLockKeys } from '../locks/redis/keys.js';
import { RedlockReleaseHints } from '../locks/redis/redlock/release-hints.js';
import { Redlock } from '../locks/redis/redlock/package.js';
import { RedlockLock } from '../locks/redis/redlock/redlock.js';
import { MAX_HANDOFF_STREAK } from '../locks/handoff.js';
import { ProcessLine } from '../locks/process-line.js';
import { declareStrategies } from './declare.js';
import { withLinedRow } from './lined.js';
import type { FamilyFactory } from './strategy.js';

/**
 * The package's settings that apply. retryCount is 0 because the retries are the lock's own
 * (RedlockLock: one contender per process, woken by release hints, else exponential backoff with
 * full jitter from retryMs, until waitMs), so the package's retryDelay and retryJitter go unused;
 * the lease is the request's ttlMs.
 */
const REDLOCK_SETTINGS = {
  /** Clock drift allowance: the lock counts as valid for ttl − (ttl × driftFactor + 2 ms). */
  driftFactor: 0.01,
  retryCount: 0,
} as const;

export const redlockFamily: FamilyFactory = async (deps) => {
  const { config } = deps;
  // Subscriber connections (one per master) for the release hints; they never carry the votes.
  const [clients, subscribers] = await Promise.all([connectRedlockMasters(config, 'redlock'), connectRedlockMasters(config, 'redlock-hints')]);
  const redlock = new Redlock(clients, REDLOCK_SETTINGS);
  const hints = new RedlockReleaseHints(clients, subscribers);
  // The package reports each server's failed vote here too; the failure reaches the caller anyway.
  redlock.on('error', () => undefined);
  const quorum = Math.floor(clients.length / 2) + 1;

  return {
    strategies: declareStrategies(deps, [
      ...withLinedRow(
        {
          name: 'redlock',
          family: 'redlock',
          course: '§2.9',
          description: {
            en: `SET NX PX on ${clients.length} independent Redis masters; held once ${quorum} agree within the lease. One hold per request: each request asks the masters, as the course has it.`,
            zh: `在 ${clients.length} 个相互独立的 Redis 主节点上 SET NX PX；租期内有 ${quorum} 个节点同意即加锁成功（红锁）。与课程一致：每个请求各自向各主节点申请一次。`,
          },
          expected: {
            oneInstance: 'exact',
            threeInstances: 'exact',
            workOverTtl: 'exact',
            note: `survives ${clients.length - quorum} of ${clients.length} servers down; 503 without a quorum; no fencing token (no single counter)`,
          },
          lock: new RedlockLock(redlock, hints),
          faultLab: true,
        },
        {
          // The line passes a hold within the instance; a pass keeps the hold's validity, and its `lost`.
          lock: new ProcessLine(new RedlockLock(redlock, hints)),
          description: {
            en: `redlock behind a process line: one contender per instance; its requests line up in memory, and a holder passes its hold to the next one while the validity lasts, without a round trip to the masters (at most ${MAX_HANDOFF_STREAK} times in a row).`,
            zh: `在进程内排队的 redlock：每个实例只有一个竞争者；实例内的请求在内存中排队，持锁者在有效时间内把锁直接交给下一个请求，不再访问各主节点（最多连续 ${MAX_HANDOFF_STREAK} 次）。`,
          },
        },
      ),
    ]),
    // Servers that are down keep their leftovers until they expire; the others are cleaned now.
    clearLocks: async () => void (await Promise.allSettled(clients.map((c) => deleteLockKeys(c)))),
    async health() {
      const up = await Promise.all(
        clients.map((c) =>
          c.ping().then(
            () => true,
            () => false,
          ),
        ),
      );
      return { redlock: up.filter(Boolean).length >= quorum };
    },
    async close() {
      for (const c of [...clients, ...subscribers]) c.disconnect();
    },
  };
};
