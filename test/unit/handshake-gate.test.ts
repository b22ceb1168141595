import { describe, expect, it } from 'vitest';
import { HandshakeGate } from '../../src/db/handshake-gate.js';

class Unreachable extends Error {}

/** A handshake the test ends by hand: `open()` resolves it, `fail(err)` rejects it. */
function heldHandshake() {
  let open!: () => void;
  let fail!: (err: unknown) => void;
  const done = new Promise<void>((resolve, reject) => ((open = resolve), (fail = reject)));
  return { run: () => done, open, fail };
}

const settle = () => new Promise((r) => setImmediate(r));

/** Each handshake sent through `gate`: the order they started in, and how each ended ('opened' or its error). */
function through(gate: HandshakeGate, hs: ReturnType<typeof heldHandshake>[]) {
  const started: number[] = [];
  const passes = hs.map((h, i) =>
    gate
      .through(() => (started.push(i), h.run()))
      .then(
        () => 'opened',
        (err: unknown) => err,
      ),
  );
  return { started, passes };
}

describe('HandshakeGate: a pool opens its connections a few at a time', () => {
  it('runs at most atOnce handshakes together; the next starts when one ends', async () => {
    const gate = new HandshakeGate(2, (err) => err instanceof Unreachable);
    const hs = [heldHandshake(), heldHandshake(), heldHandshake(), heldHandshake()];
    const started: number[] = [];
    const passes = hs.map((h, i) => gate.through(() => (started.push(i), h.run())));
    await settle();
    expect({ started, waiting: gate.waiting }).toEqual({ started: [0, 1], waiting: 2 });
    hs[1]!.open();
    await settle();
    expect(started).toEqual([0, 1, 2]);
    hs[0]!.open();
    hs[2]!.open();
    await settle();
    hs[3]!.open();
    await expect(Promise.all(passes)).resolves.toEqual([undefined, undefined, undefined, undefined]);
    expect(started).toEqual([0, 1, 2, 3]);
  });

  it('a handshake that finds the server unreachable fails those queued behind it, unstarted, with its error', async () => {
    const gate = new HandshakeGate(1, (err) => err instanceof Unreachable);
    const hs = [heldHandshake(), heldHandshake(), heldHandshake()];
    const { started, passes } = through(gate, hs);
    await settle();
    const down = new Unreachable('timeout expired');
    hs[0]!.fail(down);
    expect(await Promise.all(passes)).toEqual([down, down, down]);
    expect({ started, waiting: gate.waiting }).toEqual({ started: [0], waiting: 0 });
    // The next wave tries again.
    await expect(gate.through(async () => undefined)).resolves.toBeUndefined();
  });

  it('a handshake that times out while another opened was only slow: those queued behind it still try', async () => {
    const gate = new HandshakeGate(2, (err) => err instanceof Unreachable);
    const hs = [heldHandshake(), heldHandshake(), heldHandshake(), heldHandshake()];
    const { started, passes } = through(gate, hs);
    await settle();
    hs[1]!.open(); // the server answered 1 while 0 was still waiting
    await settle();
    hs[0]!.fail(new Unreachable('timeout expired'));
    await settle();
    expect({ started, waiting: gate.waiting }).toEqual({ started: [0, 1, 2, 3], waiting: 0 });
    // 2 began after 1 opened: nothing opens while it waits, so its timeout judges the server down
    // for any still queued (none here); 3 still has its own try.
    const slow = new Unreachable('timeout expired');
    hs[2]!.fail(slow);
    hs[3]!.open();
    expect(await Promise.all(passes)).toEqual([expect.any(Unreachable), 'opened', slow, 'opened']);
  });

  it("any other failure is that connection's alone: the next queued one still tries", async () => {
    const gate = new HandshakeGate(1, (err) => err instanceof Unreachable);
    const hs = [heldHandshake(), heldHandshake()];
    const passes = hs.map((h) =>
      gate.through(h.run).then(
        () => 'opened',
        (err: unknown) => (err as Error).message,
      ),
    );
    await settle();
    hs[0]!.fail(new Error('password authentication failed'));
    await settle();
    hs[1]!.open();
    expect(await Promise.all(passes)).toEqual(['password authentication failed', 'opened']);
  });
});
