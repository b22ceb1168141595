// The forwarder's clock (src/net/delay-scheduler.ts) planned by hand: a clock the test sets, an alarm
// that records what it was asked and wakes when the test says, and the loop's setImmediate turns
// collected and run one at a time. So the choice between waiting on the alarm and finishing the
// wait with loop turns, which on a real clock moves only how late a callback runs, is checked
// exactly: the alarm is armed spinMs before a due further away than spinMs; a nearer or past due is
// finished with one chain of loop turns; an entry runs on the first turn at or after its instant,
// never before; one thing watches the heap at a time.
import { performance } from 'node:perf_hooks';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DelayScheduler } from '../../src/net/delay-scheduler.js';

// The unit files share their workers' module cache (isolate: false): the modules this file mocks,
// and those that import them, are loaded afresh for it, and again for the files after it.
vi.hoisted(() => vi.resetModules());
const fake = vi.hoisted(() => {
  /** Stands in for the alarm thread: records arm and disarm, wakes only when the test calls wake(). */
  class FakeAlarm {
    static made: FakeAlarm[] = [];
    /** 'arm <instant>' and 'disarm', in order. */
    readonly calls: string[] = [];
    readonly online = Promise.resolve();
    constructor(readonly wake: () => void) {
      FakeAlarm.made.push(this);
    }
    ready(): Promise<void> {
      return this.online;
    }
    arm(atMs: number): void {
      this.calls.push(`arm ${atMs}`);
    }
    disarm(): void {
      this.calls.push('disarm');
    }
    /** The arm calls only. */
    get arms(): string[] {
      return this.calls.filter((c) => c.startsWith('arm'));
    }
  }
  return { FakeAlarm };
});

vi.mock('../../src/net/alarm.js', () => ({ Alarm: fake.FakeAlarm }));
afterAll(() => {
  vi.doUnmock('../../src/net/alarm.js');
  vi.resetModules();
});

let clock = 1000;
/** setImmediate callbacks the scheduler asked for, not yet run. */
let turns: (() => void)[] = [];

beforeEach(() => {
  clock = 1000;
  turns = [];
  fake.FakeAlarm.made = [];
  vi.spyOn(performance, 'now').mockImplementation(() => clock);
});
afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * Runs `step` with setImmediate collected into `turns` instead of queued on the loop: synchronous,
 * so nothing else (the test runner) calls setImmediate meanwhile.
 */
function collectingTurns<T>(step: () => T): T {
  const real = globalThis.setImmediate;
  globalThis.setImmediate = ((fn: () => void) => {
    turns.push(fn);
    return undefined as unknown as NodeJS.Immediate;
  }) as unknown as typeof setImmediate;
  try {
    return step();
  } finally {
    globalThis.setImmediate = real;
  }
}

/** Runs the turns asked for so far (one loop turn), collecting those they ask for. */
function turn(): void {
  const now = turns;
  turns = [];
  collectingTurns(() => now.forEach((fn) => fn()));
}

/** A scheduler on the fake alarm, spinMs 0.5 (1000.5 and 1000.25 are exact in binary). */
function make() {
  const scheduler = new DelayScheduler(0.5);
  const alarm = fake.FakeAlarm.made.at(-1)!;
  const ran: string[] = [];
  const at = (due: number, name: string) => collectingTurns(() => scheduler.at(due, () => ran.push(name)));
  return { scheduler, alarm, ran, at };
}

describe('DelayScheduler: alarm or loop turns', () => {
  it('ready() is the alarm thread’s start', async () => {
    const { scheduler, alarm } = make();
    expect(scheduler.ready()).toBe(alarm.online);
    await expect(scheduler.ready()).resolves.toBeUndefined();
  });

  it('a due further ahead than spinMs arms the alarm spinMs before it and takes no loop turn', () => {
    const { alarm, at, ran } = make();
    at(1010, 'a');
    expect(alarm.arms).toEqual(['arm 1009.5']);
    expect(turns).toHaveLength(0);
    expect(ran).toEqual([]);
  });

  it('a due within spinMs, or exactly spinMs ahead, is finished with loop turns, the alarm left unarmed', () => {
    for (const due of [1000.25, 1000.5]) {
      clock = 1000;
      turns = [];
      const { alarm, at } = make();
      at(due, 'a');
      expect(alarm.arms, `due ${due}`).toEqual([]);
      expect(turns, `due ${due}`).toHaveLength(1);
    }
  });

  it('a due already past is finished with a loop turn, not the alarm', () => {
    const { alarm, at, ran } = make();
    at(990, 'a');
    expect(alarm.arms).toEqual([]);
    expect(turns).toHaveLength(1);
    turn();
    expect(ran).toEqual(['a']);
  });

  it('runs an entry on the first turn at or after its instant, never before, each turn re-checking the clock', () => {
    const { at, ran, scheduler } = make();
    at(1000.25, 'a');
    turn();
    expect(ran).toEqual([]); // 0.25 ms early: not yet
    expect(turns).toHaveLength(1); // and the chain goes on
    clock = 1000.25; // exactly due
    turn();
    expect(ran).toEqual(['a']);
    expect(turns).toHaveLength(0); // nothing left: the chain ends
    expect(scheduler.pending).toBe(0);
  });

  it('while turns watch the heap, a new earliest entry starts no second chain, and the alarm’s wake runs nothing', () => {
    const { alarm, at, ran } = make();
    at(1000, 'a');
    at(999, 'b'); // earlier than everything queued
    expect(turns).toHaveLength(1);
    at(1000.1, 'c');
    expect(turns).toHaveLength(1);
    expect(alarm.arms).toEqual([]);
    // A wake the thread had already posted: the turn, not the wake, runs the due entries.
    collectingTurns(() => alarm.wake());
    expect(ran).toEqual([]);
    expect(turns).toHaveLength(1);
    turn();
    expect(ran).toEqual(['b', 'a']);
    clock = 1000.1;
    turn();
    expect(ran).toEqual(['b', 'a', 'c']);
  });

  it('only a new earliest entry re-arms the alarm; a later one waits behind it', () => {
    const { alarm, at } = make();
    at(1010, 'a');
    at(1020, 'b');
    expect(alarm.arms).toEqual(['arm 1009.5']);
    at(1005, 'c');
    expect(alarm.arms).toEqual(['arm 1009.5', 'arm 1004.5']);
  });

  it('the alarm’s wake, spinMs early, hands over to loop turns, which run the entry at its instant and re-arm for the next', () => {
    const { alarm, at, ran, scheduler } = make();
    at(1010, 'a');
    at(1020, 'b');
    clock = 1009.5;
    collectingTurns(() => alarm.wake());
    expect(ran).toEqual([]);
    expect(turns).toHaveLength(1);
    expect(alarm.calls.at(-1)).toBe('disarm');
    clock = 1010;
    turn();
    expect(ran).toEqual(['a']);
    expect(turns).toHaveLength(0);
    expect(alarm.arms).toEqual(['arm 1009.5', 'arm 1019.5']);
    expect(scheduler.pending).toBe(1);
  });

  it('a wake with nothing due yet (a stale one) only plans again', () => {
    const { alarm, at, ran } = make();
    at(1010, 'a');
    clock = 1001;
    collectingTurns(() => alarm.wake());
    expect(ran).toEqual([]);
    expect(turns).toHaveLength(0);
    // Armed for the same instant again (the alarm ignores an arming it already has).
    expect(alarm.arms).toEqual(['arm 1009.5', 'arm 1009.5']);
  });

  it('once the heap is empty, the alarm is disarmed', () => {
    const { alarm, at, ran } = make();
    at(1010, 'a');
    clock = 1010;
    collectingTurns(() => alarm.wake());
    expect(ran).toEqual(['a']);
    expect(alarm.calls.at(-1)).toBe('disarm');
    expect(turns).toHaveLength(0);
  });
});
