// The faults a page may put on the cluster, each healing by itself: a frozen server is resumed, a
// killed one started again, at the latest MAX_FAULT_MS after it began (by signals, or through the
// Docker API in compose: the Proc of live/servers.ts). healAll() ends them all (the page closed,
// the server stopping).
import { monotonicMs } from '../src/http/server-timing.js';
import type { Proc } from './servers.js';
import type { FaultKind, FaultMark } from './shared/types.js';

/** No fault outlives this. */
export const MAX_FAULT_MS = 30_000;

interface Active {
  mark: FaultMark;
  proc: Proc;
  timer: NodeJS.Timeout;
  heal: () => Promise<void>;
  /** set once healing began: a second heal waits for the first */
  healing?: Promise<void>;
}

export class FaultBoard {
  private nextId = 1;
  private readonly active = new Map<number, Active>();
  private readonly done: FaultMark[] = [];
  /** servers a fault is being put on right now */
  private readonly beginning = new Set<string>();

  /** `epoch`: the monotonic ms that marks' times count from; `onChange` after every start and heal. */
  constructor(
    private epoch: number,
    private readonly onChange: () => void,
  ) {}

  /** Marks from now on count from `epoch` (a race's start); earlier healed marks are forgotten. */
  restartClock(epoch: number): void {
    const shift = epoch - this.epoch;
    this.epoch = epoch;
    this.done.length = 0;
    for (const a of this.active.values()) {
      // still on: kept, with times (negative: before the race) on the new clock
      a.mark.start -= shift;
      a.mark.healBy -= shift;
    }
  }

  private now(): number {
    return monotonicMs() - this.epoch;
  }

  marks(): FaultMark[] {
    return [...this.done, ...[...this.active.values()].map((a) => a.mark)];
  }

  isFaulted(name: string): boolean {
    return [...this.active.values()].some((a) => a.proc.name === name);
  }

  /** Frozen (SIGSTOP, or docker pause), as a long GC pause; resumed after ms. */
  freeze(proc: Proc, ms: number): Promise<FaultMark> {
    return this.begin('freeze', proc, ms, async () => {
      await proc.freeze();
      return () => proc.resume();
    });
  }

  /**
   * A request of a race stopped its own instance (pause=…): wait until it is stopped, then heal it
   * like a freeze. Resolves undefined when it never stopped within waitMs (the request got no lock).
   */
  async holderFrozen(proc: Proc, ms: number, waitMs: number): Promise<FaultMark | undefined> {
    const stoppedItself = proc.stoppedItself?.bind(proc);
    if (!stoppedItself) throw new FaultError(`${proc.name}: freezing the holder needs the native cluster's fault hooks (npm run live)`);
    this.refuseTwice(proc);
    if (!(await stoppedItself(waitMs))) return undefined;
    return this.add('holder-freeze', proc, ms, () => proc.resume());
  }

  /** SIGKILL, as a crash; started again after ms (its start waits until it is healthy). */
  kill(proc: Proc, ms: number): Promise<FaultMark> {
    return this.begin('kill', proc, ms, async () => {
      await proc.kill();
      return () => proc.start();
    });
  }

  /** Heals one fault now (resume, restart), by its target's name. */
  async heal(name: string): Promise<boolean> {
    const a = [...this.active.values()].find((x) => x.proc.name === name);
    if (!a) return false;
    await this.finish(a);
    return true;
  }

  async healAll(): Promise<void> {
    await Promise.all([...this.active.values()].map((a) => this.finish(a)));
  }

  private refuseTwice(proc: Proc): void {
    if (this.isFaulted(proc.name) || this.beginning.has(proc.name)) throw new FaultError(`${proc.name} already has a fault on it`);
  }

  /** Puts a fault on a running server; `apply` does it and returns how to heal it. */
  private async begin(kind: FaultKind, proc: Proc, ms: number, apply: () => Promise<() => Promise<void>>): Promise<FaultMark> {
    this.refuseTwice(proc);
    // the driver's calls take time (the Docker API): nothing else may fault it meanwhile
    this.beginning.add(proc.name);
    try {
      if (!(await proc.isUp())) throw new FaultError(`${proc.name} is not running`);
      return this.add(kind, proc, ms, await apply());
    } finally {
      this.beginning.delete(proc.name);
    }
  }

  private add(kind: FaultKind, proc: Proc, ms: number, heal: () => Promise<void>): FaultMark {
    const bounded = Math.min(Math.max(ms, 0), MAX_FAULT_MS);
    const start = this.now();
    const mark: FaultMark = { id: this.nextId++, kind, target: proc.name, start, healBy: start + bounded };
    const a: Active = { mark, proc, heal, timer: setTimeout(() => void this.finish(a), bounded) };
    this.active.set(mark.id, a);
    this.onChange();
    return mark;
  }

  private finish(a: Active): Promise<void> {
    clearTimeout(a.timer);
    a.healing ??= (async () => {
      try {
        await a.heal();
      } finally {
        // Still faulted until healed: a restart takes seconds, and nothing may fault it meanwhile.
        this.active.delete(a.mark.id);
        a.mark.end = this.now();
        this.done.push(a.mark);
        this.onChange();
      }
    })();
    return a.healing;
  }
}

/** A fault the board refuses (the server is down, or already faulted): a 409 for the page. */
export class FaultError extends Error {}
