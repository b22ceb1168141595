// The ZooKeeper queue's pure parts (src/locks/zk/queue.ts): reading a queue node's name (Curator's
// protected-mode prefix, a downgrade's borrowed place, see read-write.ts), the queue's order, and
// the bounded wait for a watch.
import { describe, expect, it } from 'vitest';
import { DependencyDownError } from '../../src/dependency.js';
import { inQueueOrder, sequenceOf, waitFor } from '../../src/locks/zk/queue.js';
import { ZkDeadlineError } from '../../src/locks/zk/session.js';
import { deferred, isSettled } from '../support/deferred.js';

/** Curator's protected-mode prefix; this attempt id's last group is all digits, longer than a sequence. */
const P = '_c_01234567-89ab-4cde-8f01-234567890123-';
const seq = (n: number) => String(n).padStart(10, '0');
const lock = (n: number) => `${P}lock-${seq(n)}`;
const write = (n: number) => `${P}__WRIT__${seq(n)}`;
const read = (n: number) => `${P}__READ__${seq(n)}`;
/** The read a write holder downgrades to: it names its write's place, then gets its own sequence. */
const downgrade = (place: number, n: number) => `${P}__READ__at${seq(place)}-${seq(n)}`;

describe('sequenceOf', () => {
  it("reads the ten digits ZooKeeper appended, not the attempt id's", () => {
    expect(sequenceOf(lock(42))).toBe('0000000042');
    expect(sequenceOf(write(7))).toBe('0000000007');
  });

  it("reads a downgrade's own sequence, not the place it takes", () => {
    expect(sequenceOf(downgrade(3, 12))).toBe('0000000012');
  });

  it('is empty for a name without a sequence', () => {
    expect(sequenceOf(`${P}lock-`)).toBe('');
    expect(sequenceOf('lock-123')).toBe('');
  });
});

describe('inQueueOrder', () => {
  it('orders by sequence whatever the recipe and the attempt id', () => {
    const other = '_c_ffffffff-ffff-4fff-bfff-ffffffffffff-';
    const children = [lock(3), `${other}lock-${seq(1)}`, read(10), write(2), lock(9)];
    expect(inQueueOrder(children)).toEqual([`${other}lock-${seq(1)}`, write(2), lock(3), lock(9), read(10)]);
  });

  it('orders numerically across a change in digit count (the sequence is zero-padded)', () => {
    expect(inQueueOrder([lock(10), lock(9), lock(100)])).toEqual([lock(9), lock(10), lock(100)]);
  });

  it('leaves out children that are no queue node', () => {
    expect(inQueueOrder(['leases', `${P}lock-`, lock(1)])).toEqual([lock(1)]);
  });

  it("puts a downgrade's read in its write's place: right behind that write, ahead of the writers queued after it", () => {
    const children = [write(5), write(4), downgrade(2, 6), read(3), write(2), write(1)];
    expect(inQueueOrder(children)).toEqual([write(1), write(2), downgrade(2, 6), read(3), write(4), write(5)]);
  });

  it('keeps the downgrade ahead of those writers once its write is gone', () => {
    expect(inQueueOrder([write(4), downgrade(2, 6), read(3)])).toEqual([downgrade(2, 6), read(3), write(4)]);
  });

  it('does not change the list it is given', () => {
    const children = [lock(2), lock(1)];
    inQueueOrder(children);
    expect(children).toEqual([lock(2), lock(1)]);
  });
});

describe('waitFor (a watch, bounded by a deadline and by the connection)', () => {
  it('resolves with the event', async () => {
    const event = deferred<void>();
    const waiting = waitFor(event.promise, Date.now() + 60_000, new AbortController().signal);
    expect(await isSettled(waiting)).toBe(false);
    event.resolve();
    await waiting;
  });

  it('rejects with ZkDeadlineError at the deadline', async () => {
    const started = Date.now();
    await expect(waitFor(new Promise<void>(() => undefined), started + 20, new AbortController().signal)).rejects.toBeInstanceOf(ZkDeadlineError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
  });

  it('rejects with ZooKeeper unavailable when the connection drops, or had already dropped', async () => {
    const connection = new AbortController();
    const waiting = waitFor(new Promise<void>(() => undefined), Date.now() + 60_000, connection.signal);
    connection.abort('disconnected');
    const down = await waiting.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(down).toBeInstanceOf(DependencyDownError);
    expect((down as DependencyDownError).dependency).toBe('zookeeper');
    await expect(waitFor(new Promise<void>(() => undefined), Date.now() + 60_000, connection.signal)).rejects.toBeInstanceOf(DependencyDownError);
  });

  it('stays resolved when the connection drops afterwards', async () => {
    const connection = new AbortController();
    await waitFor(Promise.resolve(), Date.now() + 60_000, connection.signal);
    connection.abort('disconnected');
  });
});
