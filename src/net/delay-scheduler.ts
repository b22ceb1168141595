// Runs callbacks at precise instants (performance.now() clock), never before them. The alarm thread
// wakes the loop spinMs early; the last stretch is finished with setImmediate checks, which keep
// I/O flowing (each turn of the loop polls) and cost CPU only while something is about to be due.
import { performance } from 'node:perf_hooks';
import { Alarm } from './alarm.js';

/** How early the alarm wakes the loop by default: its usual lateness (about 0.1 ms) with a margin. */
export const DEFAULT_SPIN_MS = 0.2;

interface Entry {
  readonly due: number;
  readonly seq: number;
  readonly run: () => void;
}

/** Earlier due first; equal dues in the order they were scheduled (byte order depends on it). */
function before(a: Entry, b: Entry): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}

/** A binary min-heap of entries. */
class EntryHeap {
  private readonly items: Entry[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): Entry | undefined {
    return this.items[0];
  }

  push(entry: Entry): void {
    const items = this.items;
    items.push(entry);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent] as Entry;
      if (!before(entry, p)) break;
      items[i] = p;
      i = parent;
    }
    items[i] = entry;
  }

  pop(): Entry | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= items.length) break;
      const r = l + 1;
      const child = r < items.length && before(items[r] as Entry, items[l] as Entry) ? r : l;
      const c = items[child] as Entry;
      if (!before(c, last)) break;
      items[i] = c;
      i = child;
    }
    items[i] = last;
    return top;
  }
}

export class DelayScheduler {
  private readonly heap = new EntryHeap();
  private readonly alarm = new Alarm(() => {
    // While spinning, the setImmediate chain already watches the heap.
    if (!this.spinning) this.tick();
  });
  private seq = 0;
  private spinning = false;

  /** `spinMs`: how early the alarm wakes the loop, to finish the wait with setImmediate checks. */
  constructor(private readonly spinMs = DEFAULT_SPIN_MS) {}

  /** Resolves once the alarm thread runs, so the first delay is as precise as the others. */
  ready(): Promise<void> {
    return this.alarm.ready();
  }

  /** Callbacks waiting to run. */
  get pending(): number {
    return this.heap.size;
  }

  /** Runs `run` at `due` (performance.now() clock) or as soon after as the loop allows. */
  at(due: number, run: () => void): void {
    const entry: Entry = { due, seq: this.seq++, run };
    this.heap.push(entry);
    // Only a new earliest entry changes the plan; a later one is reached by the ticks before it.
    if (!this.spinning && this.heap.peek() === entry) this.plan();
  }

  private plan(): void {
    const top = this.heap.peek();
    if (!top) {
      this.alarm.disarm();
      return;
    }
    if (top.due - performance.now() > this.spinMs) {
      this.alarm.arm(top.due - this.spinMs);
      return;
    }
    this.alarm.disarm();
    this.spinning = true;
    setImmediate(this.onImmediate);
  }

  private readonly onImmediate = (): void => {
    this.spinning = false;
    this.tick();
  };

  private tick(): void {
    const now = performance.now();
    try {
      for (let top = this.heap.peek(); top && top.due <= now; top = this.heap.peek()) {
        this.heap.pop();
        top.run();
      }
    } finally {
      this.plan();
    }
  }
}

let shared: DelayScheduler | undefined;

/** The process's scheduler: one alarm thread and one heap for every forwarder in the process. */
export function sharedScheduler(): DelayScheduler {
  shared ??= new DelayScheduler();
  return shared;
}
