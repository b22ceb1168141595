// One direction of a forwarded connection: what one socket sends, handed to the other after the
// one-way delay, in order. Data, the half-close (end) and a reset travel in one queue, so a FIN or
// an RST arrives after the bytes sent before it, as on a wire. With no delay and nothing queued, a
// chunk is written at once: plain piping, nothing scheduled.
import { performance } from 'node:perf_hooks';
import type { Socket } from 'node:net';
import type { DelayScheduler } from './delay-scheduler.js';

/** Bytes held in the delay queue before the sender is paused: the link's window. */
const QUEUE_HIGH_WATER = 4 * 1024 * 1024;

/** Totals shared by every direction of one forwarder that goes the same way. */
export interface Tally {
  bytes: number;
  /** Items (chunks, ends, resets, connects) that went through the scheduler instead of straight through. */
  delayed: number;
}

export class Direction {
  private pending = 0;
  private queuedBytes = 0;
  private lastDue = -Infinity;
  private dead = false;
  private pausedByUs = false;

  constructor(
    private readonly src: Socket,
    private readonly dst: Socket,
    private readonly oneWayMs: () => number,
    private readonly scheduler: DelayScheduler,
    private readonly tally: Tally,
  ) {
    dst.on('drain', () => this.flow());
  }

  data(chunk: Buffer): void {
    this.send(chunk.length, () => {
      if (this.dst.destroyed || this.dst.writableEnded) return;
      this.tally.bytes += chunk.length;
      this.dst.write(chunk);
    });
    this.flow();
  }

  /** The sender half-closed: end the receiver's write side once the bytes before it are through. */
  end(): void {
    this.send(0, () => {
      if (!this.dst.destroyed && !this.dst.writableEnded) this.dst.end();
    });
  }

  /** The sender is gone abruptly: reset the receiver once the bytes before it are through. */
  reset(): void {
    this.send(0, () => {
      if (!this.dst.destroyed) this.dst.resetAndDestroy();
    });
  }

  /** Runs `step` in this direction's order, after the one-way delay (the target's connect: a SYN). */
  then(step: () => void): void {
    this.send(0, step);
  }

  /** The receiver is gone: drop what is queued for it and anything sent later. */
  kill(): void {
    this.dead = true;
  }

  private send(size: number, deliver: () => void): void {
    if (this.dead) return;
    const delay = this.oneWayMs();
    if (delay === 0 && this.pending === 0) {
      deliver();
      return;
    }
    // Never earlier than what is queued: a lowered delay must not overtake bytes already in flight.
    const due = Math.max(performance.now() + delay, this.lastDue);
    this.lastDue = due;
    this.pending++;
    this.queuedBytes += size;
    this.tally.delayed++;
    this.scheduler.at(due, () => {
      this.pending--;
      this.queuedBytes -= size;
      if (this.dead) return;
      deliver();
      this.flow();
    });
  }

  /** Backpressure: the sender reads only while the receiver's buffer and the queue have room. */
  private flow(): void {
    if (this.dead || this.src.destroyed) return;
    const full = this.dst.writableNeedDrain || this.queuedBytes > QUEUE_HIGH_WATER;
    if (full && !this.pausedByUs) {
      this.pausedByUs = true;
      this.src.pause();
    } else if (!full && this.pausedByUs) {
      this.pausedByUs = false;
      this.src.resume();
    }
  }
}
