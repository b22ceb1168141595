// The in-process hand-off's bookkeeping (src/locks/handoff.ts): who is claimed, in which order, how
// often in a row, and what a sleeper gets back. The fused step on the server stays with the
// integration tests (test/integration/handoff.test.ts); here a holder settles by hand.
import { describe, expect, it, vi } from 'vitest';
import { Handoffs, MAX_HANDOFF_STREAK, sleepOffered } from '../../src/locks/handoff.js';
import { deferred, isSettled } from '../support/deferred.js';

const R = 'stock:1';

describe('Handoffs', () => {
  it('claims nobody when nobody sleeps', () => {
    const handoffs = new Handoffs<string, number>();
    expect(handoffs.claim(R)).toBeUndefined();
    expect(handoffs.sleeping(R)).toBe(0);
  });

  it('hands a sleeper the grant its holder settles: its sleep ends, it leaves the line, close() gives the grant', async () => {
    const handoffs = new Handoffs<string, number>();
    const offer = handoffs.offer(R, 'a');
    expect(handoffs.sleeping(R)).toBe(1);
    expect(await isSettled(offer.claimed)).toBe(false);

    const claim = handoffs.claim(R);
    expect(claim?.waiter).toBe('a');
    expect(handoffs.sleeping(R)).toBe(0);
    expect(await isSettled(offer.claimed)).toBe(true);

    // close() waits for the fused step's outcome.
    const closed = offer.close();
    expect(await isSettled(closed)).toBe(false);
    claim?.settle(42);
    expect(await closed).toBe(42);
  });

  it('claims sleepers in the order they started sleeping, each once', () => {
    const handoffs = new Handoffs<string, number>();
    for (const w of ['a', 'b', 'c']) handoffs.offer(R, w);
    const claimed = [handoffs.claim(R), handoffs.claim(R), handoffs.claim(R), handoffs.claim(R)].map((c) => c?.waiter);
    expect(claimed).toEqual(['a', 'b', 'c', undefined]);
  });

  it('never claims a sleeper that closed: it leaves the line and the next one is claimed', async () => {
    const handoffs = new Handoffs<string, number>();
    const a = handoffs.offer(R, 'a');
    handoffs.offer(R, 'b');
    expect(await a.close()).toBeUndefined();
    expect(handoffs.sleeping(R)).toBe(1);
    expect(handoffs.claim(R)?.waiter).toBe('b');
    expect(await isSettled(a.claimed)).toBe(false);
    expect(handoffs.claim(R)).toBeUndefined();
  });

  it('keeps each resource its own line', () => {
    const handoffs = new Handoffs<string, number>();
    handoffs.offer('r1', 'a');
    handoffs.offer('r2', 'b');
    expect(handoffs.claim('r2')?.waiter).toBe('b');
    expect(handoffs.claim('r2')).toBeUndefined();
    expect(handoffs.sleeping('r1')).toBe(1);
    expect(handoffs.claim('r1')?.waiter).toBe('a');
  });

  it('a failed fused step (settled undefined) leaves the sleeper without a grant: it attempts again', async () => {
    const handoffs = new Handoffs<string, number>();
    const offer = handoffs.offer(R, 'a');
    handoffs.claim(R)?.settle(undefined);
    expect(await offer.close()).toBeUndefined();
  });

  it('a fused step whose reply was lost fails the sleeper with that error', async () => {
    const handoffs = new Handoffs<string, number>();
    const offer = handoffs.offer(R, 'a');
    const lost = new Error('reply lost');
    handoffs.claim(R)?.fail(lost);
    await expect(offer.close()).rejects.toBe(lost);
  });

  it(`passes the lock on at most ${MAX_HANDOFF_STREAK} times in a row, then lets the holder release it for everyone`, () => {
    const handoffs = new Handoffs<number, number>();
    for (let i = 0; i < MAX_HANDOFF_STREAK + 2; i++) handoffs.offer(R, i);
    const streak: number[] = [];
    for (let claim = handoffs.claim(R); claim; claim = handoffs.claim(R)) streak.push(claim.waiter);
    expect(streak).toEqual(Array.from({ length: MAX_HANDOFF_STREAK }, (_, i) => i));
    // The rest still sleep; they wait for the release everyone hears.
    expect(handoffs.sleeping(R)).toBe(2);
  });

  it('starts a new streak once an attempt of this process wins the lock (granted), on that resource only', () => {
    const handoffs = new Handoffs<number, number>();
    for (let i = 0; i < MAX_HANDOFF_STREAK + 1; i++) {
      handoffs.offer(R, i);
      handoffs.offer('other', i);
    }
    for (let i = 0; i < MAX_HANDOFF_STREAK; i++) {
      handoffs.claim(R);
      handoffs.claim('other');
    }
    handoffs.granted('other');
    expect(handoffs.claim(R)).toBeUndefined();
    expect(handoffs.claim('other')?.waiter).toBe(MAX_HANDOFF_STREAK);
    handoffs.granted(R);
    expect(handoffs.claim(R)?.waiter).toBe(MAX_HANDOFF_STREAK);
  });

  it('counts only hand-offs in the streak, not claims that found nobody', () => {
    const handoffs = new Handoffs<number, number>();
    for (let i = 0; i < 3 * MAX_HANDOFF_STREAK; i++) expect(handoffs.claim(R)).toBeUndefined();
    handoffs.offer(R, 0);
    expect(handoffs.claim(R)?.waiter).toBe(0);
  });
});

describe('sleepOffered', () => {
  it('returns undefined when the sleep ends unclaimed, and leaves the line', async () => {
    const handoffs = new Handoffs<string, number>();
    const giveBack = vi.fn(async () => undefined);
    expect(await sleepOffered(handoffs.offer(R, 'a'), async () => undefined, giveBack)).toBeUndefined();
    expect(handoffs.sleeping(R)).toBe(0);
    expect(giveBack).not.toHaveBeenCalled();
  });

  it('returns the grant a holder passed on, the sleep cut short by the claim', async () => {
    const handoffs = new Handoffs<string, number>();
    const asleep = sleepOffered(
      handoffs.offer(R, 'a'),
      (claimed) => claimed,
      async () => undefined,
    );
    handoffs.claim(R)?.settle(7);
    expect(await asleep).toBe(7);
  });

  it("surfaces a failed claim's error", async () => {
    const handoffs = new Handoffs<string, number>();
    const asleep = sleepOffered(
      handoffs.offer(R, 'a'),
      (claimed) => claimed,
      async () => undefined,
    );
    const lost = new Error('reply lost');
    handoffs.claim(R)?.fail(lost);
    await expect(asleep).rejects.toBe(lost);
  });

  it('rethrows an aborted sleep unclaimed, giving nothing back', async () => {
    const handoffs = new Handoffs<string, number>();
    const aborted = new Error('client left');
    const giveBack = vi.fn(async () => undefined);
    await expect(sleepOffered(handoffs.offer(R, 'a'), () => Promise.reject(aborted), giveBack)).rejects.toBe(aborted);
    expect(giveBack).not.toHaveBeenCalled();
    expect(handoffs.sleeping(R)).toBe(0);
  });

  it('gives back a grant passed on while the sleep was aborted, then rethrows the abort', async () => {
    const handoffs = new Handoffs<string, number>();
    const sleep = deferred<void>();
    const giveBack = vi.fn(async (_grant: number) => undefined);
    const asleep = sleepOffered(handoffs.offer(R, 'a'), () => sleep.promise, giveBack);
    // The holder claims; the sleeper's client leaves while the fused step is in flight; then it lands.
    const claim = handoffs.claim(R);
    const aborted = new Error('client left');
    sleep.reject(aborted);
    expect(await isSettled(asleep)).toBe(false);
    claim?.settle(9);
    await expect(asleep).rejects.toBe(aborted);
    expect(giveBack).toHaveBeenCalledExactlyOnceWith(9);
  });

  it('rethrows the abort even when giving the grant back fails', async () => {
    const handoffs = new Handoffs<string, number>();
    const aborted = new Error('client left');
    const offer = handoffs.offer(R, 'a');
    handoffs.claim(R)?.settle(3);
    const giveBack = vi.fn(() => Promise.reject(new Error('redis down')));
    await expect(sleepOffered(offer, () => Promise.reject(aborted), giveBack)).rejects.toBe(aborted);
    expect(giveBack).toHaveBeenCalledExactlyOnceWith(3);
  });
});
