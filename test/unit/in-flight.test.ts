// The deductions in flight on one instance (src/http/in-flight.ts): the cap, the signal that stops a
// deduction whose client left, and the drain on shutdown. A response here is a stand-in with the
// two things InFlight reads of it: its 'close' event and whether it finished writing.
import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import { describe, expect, it } from 'vitest';
import { admittedSignal, BusyError, ClientGoneError, InFlight, ShuttingDownError } from '../../src/http/in-flight.js';
import { isSettled } from '../support/deferred.js';

class FakeResponse extends EventEmitter {
  writableFinished = false;

  /** The answer was written, then the connection's 'close' came. */
  answer(): void {
    this.writableFinished = true;
    this.emit('close');
  }

  /** The client hung up before any answer. */
  hangUp(): void {
    this.emit('close');
  }

  get res(): Response {
    return this as unknown as Response;
  }
}

function admitted(inFlight: InFlight): { response: FakeResponse; signal: AbortSignal } {
  const response = new FakeResponse();
  return { response, signal: inFlight.admit(response.res) };
}

describe('InFlight', () => {
  it('admits up to its cap and refuses the next one as busy', () => {
    const inFlight = new InFlight(2);
    admitted(inFlight);
    admitted(inFlight);
    expect(inFlight.count).toBe(2);
    expect(() => inFlight.admit(new FakeResponse().res)).toThrow(BusyError);
    expect(inFlight.count).toBe(2);
  });

  it('frees a place once a response is answered, leaving its signal alone', () => {
    const inFlight = new InFlight(1);
    const { response, signal } = admitted(inFlight);
    response.answer();
    expect(signal.aborted).toBe(false);
    expect(inFlight.count).toBe(0);
    admitted(inFlight);
    expect(inFlight.count).toBe(1);
  });

  it('aborts the deduction of a client that left before its answer, and frees its place', () => {
    const inFlight = new InFlight(1);
    const { response, signal } = admitted(inFlight);
    response.hangUp();
    expect(signal.reason).toBeInstanceOf(ClientGoneError);
    expect(inFlight.count).toBe(0);
  });

  it("hands a handler its request's signal, and refuses a response never admitted", () => {
    const inFlight = new InFlight(1);
    const { response, signal } = admitted(inFlight);
    expect(admittedSignal(response.res)).toBe(signal);
    expect(() => admittedSignal(new FakeResponse().res)).toThrow(/not admitted/);
  });

  it('drains at once when nothing runs, and admits nothing from then on', async () => {
    const inFlight = new InFlight(5);
    expect(await inFlight.drain(60_000, 60_000)).toEqual({ finished: 0, aborted: 0 });
    expect(inFlight.isDraining).toBe(true);
    expect(() => inFlight.admit(new FakeResponse().res)).toThrow(ShuttingDownError);
  });

  it('waits for the running deductions to finish within its budget, aborting none', async () => {
    const inFlight = new InFlight(5);
    const a = admitted(inFlight);
    const b = admitted(inFlight);
    const draining = inFlight.drain(60_000, 60_000);
    expect(inFlight.isDraining).toBe(true);
    a.response.answer();
    expect(await isSettled(draining)).toBe(false);
    b.response.answer();
    expect(await draining).toEqual({ finished: 2, aborted: 0 });
    expect([a.signal.aborted, b.signal.aborted]).toEqual([false, false]);
  });

  it('aborts what outlives the budget as shutting down, then waits for those to answer', async () => {
    const inFlight = new InFlight(5);
    const quick = admitted(inFlight);
    const slow = admitted(inFlight);
    // The slow deduction answers 503 shutting_down as soon as it is aborted.
    slow.signal.addEventListener('abort', () => slow.response.answer());
    const draining = inFlight.drain(20, 60_000);
    quick.response.answer();
    expect(await draining).toEqual({ finished: 1, aborted: 1 });
    expect(quick.signal.aborted).toBe(false);
    expect(slow.signal.reason).toBeInstanceOf(ShuttingDownError);
  });

  it('stops waiting for aborted deductions after abortMs', async () => {
    const inFlight = new InFlight(5);
    const stuck = admitted(inFlight);
    const started = Date.now();
    expect(await inFlight.drain(10, 20)).toEqual({ finished: 0, aborted: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(stuck.signal.reason).toBeInstanceOf(ShuttingDownError);
    expect(inFlight.count).toBe(1);
  });
});
