// The faults a page may put on the cluster, each healing by itself: a frozen server is resumed, a
// killed one started again, at the latest MAX_FAULT_MS after it began (by signals, or through the
// Docker API in compose: the Proc of live/servers.ts), a cut link healed (the hosts topology).
// healAll() ends them all (the page closed, the server stopping).
import { cut, unionOfGrudges, type Grudge } from '../src/net/grudge.js';
import { lockServiceServers } from '../src/cluster/partitions.js';
import type { Network } from '../src/net/network.js';
import { monotonicMs } from '../src/time.js';
import { FaultError } from './fault-error.js';
import type { Proc } from './servers.js';
import type { CutFrom, FaultKind, FaultMark } from './shared/types.js';

/** No fault outlives this. */
export const MAX_FAULT_MS = 30_000;

interface Active {
  mark: FaultMark;
  /** what it is on (a server's name, or a cut's): no second fault may share it, heal(name) finds it */
  key: string;
  timer: NodeJS.Timeout;
  /** undoes the fault; a heal recorded elsewhere returns the wall-clock ms it took effect at */
  heal: () => Promise<number | void>;
  /** set once healing began: a second heal waits for the first */
  healing?: Promise<void>;
}

export class FaultBoard {
  private nextId = 1;
  private readonly active = new Map<number, Active>();
  private readonly done: FaultMark[] = [];
  /** servers a fault is being put on right now */
  private readonly beginning = new Set<string>();
  /** the cuts in force, by key: the partition in force is their union */
  private readonly cuts = new Map<string, Grudge>();
  /** applies one after the other, so the last applied is the union of the cuts as they stand */
  private netQueue: Promise<unknown> = Promise.resolve();

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

  /** A wall-clock time (a partition's record) on this board's clock. */
  private onClock(wallMs: number): number {
    return this.now() - (Date.now() - wallMs);
  }

  marks(): FaultMark[] {
    return [...this.done, ...[...this.active.values()].map((a) => a.mark)];
  }

  isFaulted(name: string): boolean {
    return [...this.active.values()].some((a) => a.key === name);
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
    this.refuseTwice(proc.name);
    if (!(await stoppedItself(waitMs))) return undefined;
    return this.add('holder-freeze', proc.name, ms, () => proc.resume());
  }

  /**
   * Cuts `lane` (an instance) from the servers of `from`, both ways, on top of any cut already in
   * force; healed after ms. The mark's times are those the cut and its heal were recorded at.
   */
  async cut(net: Network, lane: string, from: CutFrom, ms: number): Promise<FaultMark> {
    const key = `${lane} ✂ ${from}`;
    this.refuseTwice(key);
    if (!net.layout) throw new FaultError(`no link can be cut on this cluster: it runs on loopback`);
    const servers = lockServiceServers(net.layout, from);
    if (servers.length === 0) throw new FaultError(`no ${from} server on this cluster to cut ${lane} from`);
    this.beginning.add(key);
    try {
      this.cuts.set(key, cut([lane], servers));
      const record = await this.applyCuts(net);
      const heal = async () => {
        this.cuts.delete(key);
        return (await this.applyCuts(net)).t;
      };
      return this.add('partition', key, ms, heal, { at: record.t, target: lane, cut: { lanes: [lane], from: servers } });
    } catch (err) {
      this.cuts.delete(key);
      await this.applyCuts(net).catch(() => undefined);
      throw err;
    } finally {
      this.beginning.delete(key);
    }
  }

  /** Heals every cut link now (the other faults stay). */
  async healCuts(): Promise<boolean> {
    const cuts = [...this.active.values()].filter((a) => a.mark.kind === 'partition');
    await Promise.all(cuts.map((a) => this.finish(a)));
    return cuts.length > 0;
  }

  /** Heals one fault by its mark's id (a race ending what it started). */
  async healMark(id: number): Promise<void> {
    const a = this.active.get(id);
    if (a) await this.finish(a);
  }

  private applyCuts(net: Network) {
    const applied = this.netQueue.then(() => net.partition(unionOfGrudges([...this.cuts.values()])));
    this.netQueue = applied.catch(() => undefined);
    return applied;
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
    const a = [...this.active.values()].find((x) => x.key === name);
    if (!a) return false;
    await this.finish(a);
    return true;
  }

  async healAll(): Promise<void> {
    await Promise.all([...this.active.values()].map((a) => this.finish(a)));
  }

  private refuseTwice(name: string): void {
    if (this.isFaulted(name) || this.beginning.has(name)) throw new FaultError(`${name} already has a fault on it`);
  }

  /** Puts a fault on a running server; `apply` does it and returns how to heal it. */
  private async begin(kind: FaultKind, proc: Proc, ms: number, apply: () => Promise<() => Promise<void>>): Promise<FaultMark> {
    this.refuseTwice(proc.name);
    // the driver's calls take time (the Docker API): nothing else may fault it meanwhile
    this.beginning.add(proc.name);
    try {
      if (!(await proc.isUp())) throw new FaultError(`${proc.name} is not running`);
      return this.add(kind, proc.name, ms, await apply());
    } finally {
      this.beginning.delete(proc.name);
    }
  }

  /** `o.at`: the wall-clock ms the fault was recorded at, when not now; `o.target`: the lane it is drawn on, when not `key`. */
  private add(
    kind: FaultKind,
    key: string,
    ms: number,
    heal: () => Promise<number | void>,
    o: { at?: number; target?: string; cut?: FaultMark['cut'] } = {},
  ): FaultMark {
    const bounded = Math.min(Math.max(ms, 0), MAX_FAULT_MS);
    const start = o.at === undefined ? this.now() : this.onClock(o.at);
    const mark: FaultMark = { id: this.nextId++, kind, target: o.target ?? key, start, healBy: start + bounded, ...(o.cut && { cut: o.cut }) };
    const a: Active = { mark, key, heal, timer: setTimeout(() => void this.finish(a), Math.max(0, start + bounded - this.now())) };
    this.active.set(mark.id, a);
    this.onChange();
    return mark;
  }

  private finish(a: Active): Promise<void> {
    clearTimeout(a.timer);
    a.healing ??= (async () => {
      // biome-ignore lint/complexity/noUselessUndefinedInitialization: tsc's definite-assignment check needs it (number | void does not count as holding undefined)
      let healedAt: number | void = undefined;
      try {
        healedAt = await a.heal();
      } finally {
        // Still faulted until healed: a restart takes seconds, and nothing may fault it meanwhile.
        this.active.delete(a.mark.id);
        a.mark.end = healedAt === undefined ? this.now() : this.onClock(healedAt);
        this.done.push(a.mark);
        this.onChange();
      }
    })();
    return a.healing;
  }
}
