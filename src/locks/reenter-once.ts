import type { Lease, Lock, LockOptions } from './lock.js';

/**
 * Takes `lock` twice in a row for the same owner and gives it back inner first, as nested code
 * would (Java's a() calling b(), both synchronized). A reentrant lock passes straight through;
 * a non-reentrant one would wait for itself until waitMs.
 */
export class ReenterOnce implements Lock {
  constructor(private readonly lock: Lock) {}

  async acquire(resource: string, opts: LockOptions): Promise<Lease> {
    const outer = await this.lock.acquire(resource, opts);
    let inner: Lease;
    try {
      inner = await this.lock.acquire(resource, opts);
    } catch (err) {
      await outer.release().catch(() => undefined);
      throw err;
    }
    return {
      lost: AbortSignal.any([outer.lost, inner.lost]),
      release: async () => {
        try {
          await inner.release();
        } finally {
          await outer.release();
        }
      },
    };
  }
}
