// The course's coordination primitives beyond the stock lock (Redisson §2.10, Curator §3.7), each
// group with endpoints of its own under /test/. The app knows them only through `Demos`.
import type { Express } from 'express';
import { openAll } from '../open-all.js';
import type { SharedDeps } from '../strategies/strategy.js';

export interface DemoGroup {
  /** Names the group in a reset's `demosNotCleared`. */
  name: string;
  /** Adds the group's routes (GET /test/...). */
  routes(app: Express): void;
  /** Clears the group's state (counts, permits, latches, nodes), for POST /stock/reset. */
  reset?(): Promise<void>;
  close?(): Promise<void>;
}

export type DemoFactory = (deps: SharedDeps) => Promise<DemoGroup>;

export class Demos {
  private constructor(private readonly groups: DemoGroup[]) {}

  static async open(deps: SharedDeps, factories: readonly DemoFactory[]): Promise<Demos> {
    return new Demos(await openAll(deps, factories));
  }

  routes(app: Express): void {
    for (const group of this.groups) group.routes(app);
  }

  /** Clears every group; one whose server is down is reported (group: reason), not thrown. */
  async reset(): Promise<string[]> {
    const results = await Promise.allSettled(this.groups.map((g) => g.reset?.()));
    return results.flatMap((r, i) =>
      r.status === 'rejected' ? [`${this.groups[i]?.name ?? 'demo'}: ${r.reason instanceof Error ? r.reason.message : String(r.reason)}`] : [],
    );
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.groups.map((g) => g.close?.()));
  }
}
