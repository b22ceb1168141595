// The forwarder's clock (src/net/delay-scheduler.ts): callbacks run in due order whatever order they
// were scheduled in, equal dues in the order scheduled (a direction's bytes rely on it), never
// before their instant. Dues a few ms ahead, checked by order and by the clock, not by speed.
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { DelayScheduler } from '../../src/net/delay-scheduler.js';

/** A fixed pseudo-random sequence in [0, 1): the same shuffle on every run. */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32;
}

interface Ran {
  id: number;
  due: number;
  at: number;
}

/** Schedules one callback per due, in the order given; resolves with the order they ran in. */
function runAll(scheduler: DelayScheduler, dues: readonly number[]): Promise<Ran[]> {
  const ran: Ran[] = [];
  return new Promise((resolve) => {
    dues.forEach((due, id) =>
      scheduler.at(due, () => {
        ran.push({ id, due, at: performance.now() });
        if (ran.length === dues.length) resolve(ran);
      }),
    );
  });
}

/** Due order, and scheduling order among equal dues: what the scheduler promises. */
const promisedOrder = (dues: readonly number[]): number[] =>
  dues
    .map((due, id) => ({ due, id }))
    .sort((a, b) => a.due - b.due || a.id - b.id)
    .map((e) => e.id);

describe('DelayScheduler', () => {
  it('runs 300 callbacks scheduled in shuffled order by due, ties in scheduling order, none early', async () => {
    const scheduler = new DelayScheduler();
    await scheduler.ready();
    const random = lcg(41);
    const t0 = performance.now() + 3;
    // 40 distinct instants over 4 ms: many ties, and a heap that must reorder on every push and pop.
    const dues = Array.from({ length: 300 }, () => t0 + Math.floor(random() * 40) / 10);
    const ran = await runAll(scheduler, dues);
    expect(ran.map((r) => r.id)).toEqual(promisedOrder(dues));
    for (const r of ran) expect(r.at, `callback ${r.id}`).toBeGreaterThanOrEqual(r.due);
    expect(scheduler.pending).toBe(0);
  });

  it('an entry scheduled earlier than everything queued runs first; one due in the past runs at once', async () => {
    const scheduler = new DelayScheduler();
    await scheduler.ready();
    const now = performance.now();
    const dues = [now + 8, now + 6, now + 4, now - 1, now + 4];
    const ran = await runAll(scheduler, dues);
    expect(ran.map((r) => r.id)).toEqual([3, 2, 4, 1, 0]);
    for (const r of ran) expect(r.at).toBeGreaterThanOrEqual(r.due);
  });

  it('counts what is waiting', async () => {
    const scheduler = new DelayScheduler();
    await scheduler.ready();
    const now = performance.now();
    const done = runAll(scheduler, [now + 2, now + 3, now + 2]);
    expect(scheduler.pending).toBe(3);
    await done;
    expect(scheduler.pending).toBe(0);
  });

  it('keeps its order when a callback schedules another (a delivery that queues the next step)', async () => {
    const scheduler = new DelayScheduler();
    await scheduler.ready();
    const now = performance.now();
    const order: string[] = [];
    await new Promise<void>((resolve) => {
      scheduler.at(now + 2, () => {
        order.push('a');
        scheduler.at(now + 3, () => order.push('c'));
      });
      scheduler.at(now + 2.5, () => order.push('b'));
      scheduler.at(now + 4, () => {
        order.push('d');
        resolve();
      });
    });
    expect(order).toEqual(['a', 'b', 'c', 'd']);
  });
});
