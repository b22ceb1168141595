// How many hold a primitive at once, counted cluster-wide in Redis: a count per instance would
// pass a lock that is broken across instances.
import type { Redis } from 'ioredis';

export type HolderCounts = Record<string, number>;

/**
 * Each holder adds itself on entering and reads every role's count in the same MULTI. Two holders
 * that overlap are seen by whichever entered second, and the largest crowd is seen by its last
 * entrant: so what the entrants saw, taken together, shows every overlap and the peak.
 */
export class HoldersGauge {
  constructor(
    private readonly redis: Redis,
    /** One Redis hash: role → holders now. */
    readonly key: string,
    private readonly roles: readonly string[],
  ) {}

  /** Runs `work` counted as a holder in `role`; returns what it saw on entering, with work's result. */
  async during<T>(role: string, work: () => Promise<T>): Promise<{ seen: HolderCounts; result: T }> {
    const seen = await this.enter(role);
    try {
      return { seen, result: await work() };
    } finally {
      await this.redis.hincrby(this.key, role, -1);
    }
  }

  private async enter(role: string): Promise<HolderCounts> {
    const replies = await this.redis
      .multi()
      .hincrby(this.key, role, 1)
      .hmget(this.key, ...this.roles)
      .exec();
    const counts = replies?.[1]?.[1];
    if (!Array.isArray(counts)) throw new Error(`holders gauge ${this.key}: MULTI was aborted`);
    return Object.fromEntries(this.roles.map((r, i) => [r, Number(counts[i] ?? 0)]));
  }

  async reset(): Promise<void> {
    await this.redis.del(this.key);
  }
}
