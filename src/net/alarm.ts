// A wake-up at a sub-millisecond instant without a busy loop. Node's setTimeout counts whole
// milliseconds and fires up to a millisecond late, too coarse to hold half of a 0.5 or 2 ms round
// trip; a worker thread blocked in Atomics.wait, whose timeout is a fractional millisecond, wakes
// within about 0.1 ms and posts a message that wakes the event loop. The thread sleeps while idle.
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

// Plain CommonJS evaluated in the thread, so it needs no loader (tsx) and starts in milliseconds.
// Slot 0 of `gen` counts re-armings (the futex the thread sleeps on); `at` holds the instant, on
// process.hrtime's clock in ms, or Infinity when disarmed.
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const gen = new Int32Array(workerData, 0, 1);
const at = new Float64Array(workerData, 8, 1);
const now = () => Number(process.hrtime.bigint()) / 1e6;
for (;;) {
  const g = Atomics.load(gen, 0);
  const target = at[0];
  if (Number.isFinite(target)) {
    const wait = target - now();
    if (wait > 0 && Atomics.wait(gen, 0, g, wait) !== 'timed-out') continue;
    if (Atomics.load(gen, 0) === g) parentPort.postMessage(g);
  }
  Atomics.wait(gen, 0, g);
}
`;

// performance.now() and process.hrtime read the same monotonic clock from different origins.
const HRTIME_OFFSET_MS = Number(process.hrtime.bigint()) / 1e6 - performance.now();

/** Calls `onWake` at (or shortly after) the instant last armed, on performance.now()'s clock. */
export class Alarm {
  private worker: Worker | undefined;
  private readonly gen: Int32Array;
  private readonly at: Float64Array;
  private armedAt = Infinity;
  /** Set once the thread has died: a plain timer takes over, late by up to a millisecond but never stuck. */
  private fallback: NodeJS.Timeout | undefined;
  private threadGone = false;
  private online: Promise<void> | undefined;

  constructor(private readonly onWake: () => void) {
    const shared = new SharedArrayBuffer(16);
    this.gen = new Int32Array(shared, 0, 1);
    this.at = new Float64Array(shared, 8, 1);
    this.at[0] = Infinity;
  }

  /**
   * Starts the thread and resolves once it runs: its start takes tens of ms, which the first
   * wake-up would otherwise pay.
   */
  ready(): Promise<void> {
    if (this.threadGone) return Promise.resolve();
    this.ensureWorker();
    return this.online ?? Promise.resolve();
  }

  /** Wakes at `atMs` (performance.now() clock), replacing any earlier arming. */
  arm(atMs: number): void {
    if (atMs === this.armedAt) return;
    this.armedAt = atMs;
    this.set(atMs);
  }

  disarm(): void {
    if (this.armedAt === Infinity) return;
    this.armedAt = Infinity;
    this.set(Infinity);
  }

  private set(atMs: number): void {
    if (this.threadGone) {
      this.setFallback(atMs);
      return;
    }
    this.ensureWorker();
    // The plain write is published by the sequentially consistent add that follows it.
    this.at[0] = atMs + HRTIME_OFFSET_MS;
    Atomics.add(this.gen, 0, 1);
    Atomics.notify(this.gen, 0);
  }

  private setFallback(atMs: number): void {
    clearTimeout(this.fallback);
    this.fallback = undefined;
    if (atMs === Infinity) return;
    this.fallback = setTimeout(
      () => {
        this.fallback = undefined;
        this.armedAt = Infinity;
        this.onWake();
      },
      Math.max(0, atMs - performance.now()),
    );
    this.fallback.unref();
  }

  private ensureWorker(): void {
    if (this.worker) return;
    // execArgv [] so the thread does not inherit --import tsx and its loader.
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: this.gen.buffer, execArgv: [] });
    worker.on('message', (g: number) => {
      // A wake for an arming since replaced is stale but harmless: the caller re-plans.
      if (g === Atomics.load(this.gen, 0)) this.armedAt = Infinity;
      this.onWake();
    });
    // Referenced until it runs, so an await on ready() keeps the process alive meanwhile; after
    // that the alarm never keeps a process alive: whatever it delays (sockets) does.
    this.online = new Promise((resolve) => {
      worker.once('online', () => {
        worker.unref();
        resolve();
      });
      worker.once('exit', () => resolve());
    });
    worker.on('error', () => {}); // 'exit' follows and hands over to the timer
    worker.on('exit', () => {
      this.threadGone = true;
      this.worker = undefined;
      this.setFallback(this.armedAt);
    });
    this.worker = worker;
  }
}
