// Whom a release message wakes, and when a wait ends (src/locks/redis/wait/release-notifier.ts).
// The notifier's subscriber here is an in-memory stand-in for the two calls it makes on its
// connection (subscribe, and 'message' events): the fan-out inside one process is pure logic. The
// real Redis path is covered by the lock tests (test/locks/, test/integration/redis-locks.test.ts).
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ReleaseNotifier, type ReleaseSubscriber, type ReleaseWait, type Wakes } from '../../src/locks/redis/wait/release-notifier.js';
import { deferred, isSettled } from '../support/deferred.js';

/** Delivers what the test publishes; its subscriptions answer when the test says so. */
class MemorySubscriber extends EventEmitter implements ReleaseSubscriber {
  readonly subscribeCalls: string[] = [];
  readonly answers: ReturnType<typeof deferred<unknown>>[] = [];

  subscribe(channel: string): Promise<unknown> {
    this.subscribeCalls.push(channel);
    const answer = deferred<unknown>();
    this.answers.push(answer);
    return answer.promise;
  }

  publish(channel: string, message = ''): void {
    this.emit('message', channel, message);
  }
}

const CH = 'release:stock:1';
/** Longer than any test: a wait that ends did so because it was woken or cancelled. */
const LONG = 60_000;

function setup() {
  const subscriber = new MemorySubscriber();
  return { subscriber, notifier: new ReleaseNotifier(subscriber) };
}

/** Registers waiters and starts their waits; `woken()` says which have ended so far. */
function waiters(notifier: ReleaseNotifier, wakes: Record<string, Wakes>, ms = LONG) {
  const waits = new Map<string, { wait: ReleaseWait; ended: Promise<void> }>();
  for (const [name, w] of Object.entries(wakes)) {
    const wait = notifier.nextRelease(CH, w);
    waits.set(name, { wait, ended: wait.within(ms) });
  }
  return {
    get: (name: string) => waits.get(name)?.wait,
    async woken(): Promise<string[]> {
      const ended: string[] = [];
      for (const [name, { ended: e }] of waits) if (await isSettled(e)) ended.push(name);
      return ended;
    },
    cancelAll: () => {
      for (const { wait } of waits.values()) wait.cancel();
    },
  };
}

describe('ReleaseNotifier', () => {
  it("wakes one 'one' waiter per message, the first in line, then the next", async () => {
    const { subscriber, notifier } = setup();
    const w = waiters(notifier, { a: 'one', b: 'one', c: 'one' });
    expect(await w.woken()).toEqual([]);
    subscriber.publish(CH);
    expect(await w.woken()).toEqual(['a']);
    subscriber.publish(CH);
    expect(await w.woken()).toEqual(['a', 'b']);
    w.cancelAll();
  });

  it("wakes two 'one' waiters with two messages in the same tick", async () => {
    const { subscriber, notifier } = setup();
    const w = waiters(notifier, { a: 'one', b: 'one', c: 'one' });
    subscriber.publish(CH);
    subscriber.publish(CH);
    expect(await w.woken()).toEqual(['a', 'b']);
    w.cancelAll();
  });

  it("wakes every 'all' waiter, and the first 'one' waiter beside them", async () => {
    const { subscriber, notifier } = setup();
    const w = waiters(notifier, { a: 'all', b: 'one', c: 'all', d: 'one' });
    subscriber.publish(CH);
    expect(await w.woken()).toEqual(['a', 'b', 'c']);
    w.cancelAll();
  });

  it('wakes an addressed waiter only with a message that carries its token', async () => {
    const { subscriber, notifier } = setup();
    const w = waiters(notifier, { a: { addressee: 'token-a' }, b: { addressee: 'token-b' } });
    subscriber.publish(CH, 'token-b');
    expect(await w.woken()).toEqual(['b']);
    subscriber.publish(CH, 'token-c');
    expect(await w.woken()).toEqual(['b']);
    subscriber.publish(CH, 'token-a');
    expect(await w.woken()).toEqual(['a', 'b']);
  });

  it('wakes nobody with a message on another channel', async () => {
    const { subscriber, notifier } = setup();
    const w = waiters(notifier, { a: 'one', b: 'all' });
    subscriber.publish('release:stock:2');
    expect(await w.woken()).toEqual([]);
    w.cancelAll();
  });

  it('does not miss a message that arrives between nextRelease and within', async () => {
    const { subscriber, notifier } = setup();
    const wait = notifier.nextRelease(CH);
    subscriber.publish(CH);
    expect(await isSettled(wait.within(LONG))).toBe(true);
  });

  it('ends a wait after its time with no message; the waiter leaves the line, so the next message wakes the next', async () => {
    const { subscriber, notifier } = setup();
    const first = notifier.nextRelease(CH);
    const w = waiters(notifier, { second: 'one' });
    const started = Date.now();
    await first.within(20);
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
    subscriber.publish(CH);
    expect(await w.woken()).toEqual(['second']);
  });

  it('cancel ends a running wait at once and leaves the line', async () => {
    const { subscriber, notifier } = setup();
    const w = waiters(notifier, { a: 'one', b: 'one' });
    w.get('a')?.cancel();
    expect(await w.woken()).toEqual(['a']);
    subscriber.publish(CH);
    expect(await w.woken()).toEqual(['a', 'b']);
  });

  it('subscribes once per channel, and again after a subscription failed', async () => {
    const { subscriber, notifier } = setup();
    const first = notifier.subscribe(CH);
    const second = notifier.subscribe(CH);
    expect(subscriber.subscribeCalls).toEqual([CH]);
    const refused = new Error('subscribe refused');
    subscriber.answers[0]?.reject(refused);
    await expect(first).rejects.toBe(refused);
    await expect(second).rejects.toBe(refused);

    const retried = notifier.subscribe(CH);
    expect(subscriber.subscribeCalls).toEqual([CH, CH]);
    subscriber.answers[1]?.resolve(1);
    await retried;
    await notifier.subscribe(CH);
    void notifier.subscribe('release:stock:2');
    expect(subscriber.subscribeCalls).toEqual([CH, CH, 'release:stock:2']);
  });
});
