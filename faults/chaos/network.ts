// The links of a chaos run on the hosts topology: at most one cut in force, each healed before the
// next is made; a killed server restarts only on a healed network (cut off, it could not reach what
// it needs to start); and a turn's count is read only once no write a cut held up can still land.
import type { Grudge } from '../../src/net/grudge.js';
import { pollUntil } from '../../src/time.js';

/**
 * After a heal, TCP retries what the cut dropped at doubling intervals, so the first retry after the
 * heal comes at most about the cut's own length later (a new connection's SYN retries likewise,
 * from 1 s); this much more, and nothing held up by the cut is still on its way.
 */
export const QUIET_SLACK_MS = 2_000;

interface Cut {
  at: number;
  grudge: Grudge;
  healedAt?: number;
}

export class ChaosNetwork {
  private readonly cuts: Cut[] = [];
  private chain: Promise<void> = Promise.resolve();

  /** Runs `body` once every earlier partition's task is over: one cut at a time. */
  async exclusive<T>(body: () => Promise<T>): Promise<T> {
    const before = this.chain;
    let release!: () => void;
    this.chain = new Promise<void>((resolve) => (release = resolve));
    try {
      await before;
      return await body();
    } finally {
      release();
    }
  }

  cutMade(at: number, grudge: Grudge): Cut {
    const cut: Cut = { at, grudge };
    this.cuts.push(cut);
    return cut;
  }

  healed(cut: Cut, at: number): void {
    cut.healedAt = at;
  }

  inForce(): boolean {
    return this.cuts.some((c) => c.healedAt === undefined);
  }

  /** Waits, up to boundMs, until no cut is in force. */
  whenHealed(boundMs: number): Promise<boolean> {
    return pollUntil(() => !this.inForce(), boundMs, 50);
  }

  /**
   * Every cut made before `before` that `holdsUp` (by default, any) has healed, and long enough ago
   * that nothing it held up is still on its way (epoch ms).
   */
  quietFor(before: number, now = Date.now(), holdsUp: (grudge: Grudge) => boolean = () => true): boolean {
    return this.cuts
      .filter((c) => c.at < before && holdsUp(c.grudge))
      .every((c) => c.healedAt !== undefined && now >= c.healedAt + (c.healedAt - c.at) + QUIET_SLACK_MS);
  }
}
