// One direction of the forwarder (src/net/direction.ts) over stand-in sockets and a scheduler the
// test runs by hand: data, a half-close and a reset leave in the order they came, after the one-way
// delay; a lowered delay never overtakes what is queued; a dead receiver gets nothing more; the
// sender is paused while the receiver or the queue is full, and resumed when there is room.
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import type { DelayScheduler } from '../../src/net/delay-scheduler.js';
import { Direction, type Tally } from '../../src/net/direction.js';

/** The parts of a socket a direction uses, recording what was done to it. */
class StandInSocket extends EventEmitter {
  destroyed = false;
  writableEnded = false;
  writableNeedDrain = false;
  readonly log: string[] = [];

  write(chunk: Buffer): boolean {
    this.log.push(`data ${chunk.toString()}`);
    return true;
  }
  end(): void {
    this.writableEnded = true;
    this.log.push('end');
  }
  resetAndDestroy(): void {
    this.destroyed = true;
    this.log.push('reset');
  }
  pause(): void {
    this.log.push('pause');
  }
  resume(): void {
    this.log.push('resume');
  }
}

/** A scheduler whose entries run when the test says, in due order. */
class ManualScheduler {
  readonly entries: { due: number; run: () => void }[] = [];
  at(due: number, run: () => void): void {
    this.entries.push({ due, run });
  }
  runAll(): void {
    while (this.entries.length > 0) {
      const i = this.entries.reduce((best, e, k) => (e.due < (this.entries[best] as { due: number }).due ? k : best), 0);
      const [entry] = this.entries.splice(i, 1);
      entry?.run();
    }
  }
}

function setUp(delayMs = 0) {
  const src = new StandInSocket();
  const dst = new StandInSocket();
  const scheduler = new ManualScheduler();
  const tally: Tally = { bytes: 0, delayed: 0 };
  const delay = { ms: delayMs };
  const direction = new Direction(src as unknown as Socket, dst as unknown as Socket, () => delay.ms, scheduler as unknown as DelayScheduler, tally);
  return { src, dst, scheduler, tally, delay, direction };
}

const MiB = 1024 * 1024;

describe('Direction: order and delay', () => {
  it('at delay 0 with nothing queued, writes at once: nothing scheduled, bytes counted', () => {
    const { dst, scheduler, tally, direction } = setUp(0);
    direction.data(Buffer.from('ab'));
    direction.end();
    expect(dst.log).toEqual(['data ab', 'end']);
    expect(scheduler.entries).toHaveLength(0);
    expect(tally).toEqual({ bytes: 2, delayed: 0 });
  });

  it('with a delay, holds each item until its instant, one-way delay after it was read', () => {
    const { dst, scheduler, tally, direction } = setUp(1);
    const before = performance.now();
    direction.data(Buffer.from('ab'));
    const after = performance.now();
    expect(dst.log).toEqual([]);
    expect(tally).toEqual({ bytes: 0, delayed: 1 });
    const due = scheduler.entries[0]?.due as number;
    expect(due).toBeGreaterThanOrEqual(before + 1);
    expect(due).toBeLessThanOrEqual(after + 1);
    scheduler.runAll();
    expect(dst.log).toEqual(['data ab']);
    expect(tally).toEqual({ bytes: 2, delayed: 1 });
  });

  it('a lowered delay never overtakes what is queued, and delay 0 still queues behind it', () => {
    const { dst, scheduler, delay, direction } = setUp(50);
    direction.data(Buffer.from('1'));
    delay.ms = 1;
    direction.data(Buffer.from('2'));
    const [first, second] = scheduler.entries;
    expect(second?.due).toBe(first?.due);
    delay.ms = 0;
    direction.data(Buffer.from('3'));
    direction.end();
    expect(dst.log).toEqual([]);
    expect(scheduler.entries).toHaveLength(4);
    scheduler.runAll();
    expect(dst.log).toEqual(['data 1', 'data 2', 'data 3', 'end']);
  });

  it('once the queue has drained, delay 0 writes at once again', () => {
    const { dst, scheduler, delay, direction } = setUp(2);
    direction.data(Buffer.from('1'));
    scheduler.runAll();
    delay.ms = 0;
    direction.data(Buffer.from('2'));
    expect(dst.log).toEqual(['data 1', 'data 2']);
    expect(scheduler.entries).toHaveLength(0);
  });

  it('a reset leaves after the bytes before it; then, nothing more is written', () => {
    const { dst, scheduler, direction } = setUp(2);
    direction.data(Buffer.from('a'));
    direction.reset();
    direction.data(Buffer.from('b'));
    direction.end();
    direction.reset();
    scheduler.runAll();
    expect(dst.log).toEqual(['data a', 'reset']);
  });

  it('after a half-close nothing more is written or counted', () => {
    const { dst, tally, direction } = setUp(0);
    direction.data(Buffer.from('a'));
    direction.end();
    direction.data(Buffer.from('late'));
    direction.end();
    expect(dst.log).toEqual(['data a', 'end']);
    expect(tally.bytes).toBe(1);
  });

  it('a receiver already destroyed gets no data, end or reset', () => {
    const { dst, tally, direction } = setUp(0);
    dst.destroyed = true;
    direction.data(Buffer.from('a'));
    direction.end();
    direction.reset();
    expect(dst.log).toEqual([]);
    expect(tally.bytes).toBe(0);
  });

  it('then() runs its step in the same order, after the delay (the connect ahead of the first bytes)', () => {
    const { dst, scheduler, direction } = setUp(2);
    direction.then(() => dst.log.push('connect'));
    direction.data(Buffer.from('a'));
    expect(dst.log).toEqual([]);
    scheduler.runAll();
    expect(dst.log).toEqual(['connect', 'data a']);
  });

  it('kill drops what is queued and whatever comes later, and stops steering the sender', () => {
    const { src, dst, scheduler, tally, direction } = setUp(2);
    direction.data(Buffer.from('a'));
    direction.kill();
    direction.data(Buffer.from('b'));
    direction.end();
    scheduler.runAll();
    expect(dst.log).toEqual([]);
    expect(tally).toEqual({ bytes: 0, delayed: 1 });
    dst.writableNeedDrain = true;
    dst.emit('drain');
    expect(src.log).toEqual([]);
  });
});

describe('Direction: backpressure', () => {
  it('pauses the sender while more than 4 MiB is queued, once, and resumes it when the queue is delivered', () => {
    const { src, scheduler, direction } = setUp(2);
    direction.data(Buffer.alloc(4 * MiB));
    expect(src.log).toEqual([]); // exactly the window: not over it
    direction.data(Buffer.alloc(1));
    expect(src.log).toEqual(['pause']);
    direction.data(Buffer.alloc(1));
    expect(src.log).toEqual(['pause']);
    scheduler.runAll();
    expect(src.log).toEqual(['pause', 'resume']);
  });

  it("pauses the sender while the receiver's buffer is full, and resumes it on the receiver's drain", () => {
    const { src, dst, direction } = setUp(0);
    dst.writableNeedDrain = true;
    direction.data(Buffer.from('a'));
    expect(src.log).toEqual(['pause']);
    dst.emit('drain');
    expect(src.log).toEqual(['pause']); // still full
    dst.writableNeedDrain = false;
    dst.emit('drain');
    expect(src.log).toEqual(['pause', 'resume']);
    dst.emit('drain');
    expect(src.log).toEqual(['pause', 'resume']);
  });

  it('leaves a sender that is already gone alone', () => {
    const { src, dst, direction } = setUp(0);
    src.destroyed = true;
    dst.writableNeedDrain = true;
    direction.data(Buffer.from('a'));
    expect(src.log).toEqual([]);
  });
});
