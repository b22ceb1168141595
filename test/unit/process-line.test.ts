// The process line's bookkeeping (src/locks/process-line.ts) over a fake inner lock the test grants,
// fails and loses by hand: what a waiter gets when the hold it waits for is lost, when the head's
// own acquire fails, and when a waiter leaves. The real locks behind a line stay with
// test/locks/redis.contract.test.ts and test/locks/zookeeper.contract.test.ts; here every step is
// sequenced by the test, so a defect shows on the first run, not one run in a hundred.
import { getEventListeners, once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { LockNotHeldError, LockTimeoutError } from '../../src/locks/errors.js';
import { MAX_HANDOFF_STREAK } from '../../src/locks/handoff.js';
import { expiringAt, leaseOf, type AcquireOptions, type Lease, type Lock } from '../../src/locks/lock.js';
import { observedBy, type LockEvent } from '../../src/locks/observer.js';
import { ProcessLine } from '../../src/locks/process-line.js';
import { deferred, isSettled, type Deferred } from '../support/deferred.js';

const R = 'stock:1';

/** One acquire the inner lock was asked for, answered when the test says. */
interface InnerCall {
  readonly owner: string;
  readonly answer: Deferred<Lease>;
}

/** One grant of the inner lock: the test loses it, the line releases it. */
interface InnerGrant {
  readonly lost: AbortController;
  released: boolean;
  tokenReads: number;
}

/**
 * A lock that answers nothing by itself: each acquire waits until the test grants or fails it.
 * A lease's release rejects with LockNotHeldError once its hold is lost (the key expired, the
 * session ended), as the real locks' owner-checked releases do.
 */
class FakeLock implements Lock {
  readonly calls: InnerCall[] = [];
  readonly grants: InnerGrant[] = [];

  acquire(_resource: string, opts: AcquireOptions): Promise<Lease> {
    const answer = deferred<Lease>();
    this.calls.push({ owner: opts.owner, answer });
    return answer.promise;
  }

  /** Grants call `i` with `token`; `lost` when the hold's end is the lease's own (a validity). */
  grant(i: number, token: bigint, lost: AbortSignal = new AbortController().signal): InnerGrant {
    const controller = new AbortController();
    // Either the test's abort or the lease's own end makes the hold lost.
    const signal = AbortSignal.any([controller.signal, lost]);
    const grant: InnerGrant = { lost: controller, released: false, tokenReads: 0 };
    this.grants.push(grant);
    const lease = leaseOf(
      R,
      signal,
      async () => {
        grant.released = true;
        if (signal.aborted) throw new LockNotHeldError(R);
      },
      async () => {
        grant.tokenReads++;
        return token;
      },
    );
    this.call(i).answer.resolve(lease);
    return grant;
  }

  call(i: number): InnerCall {
    const call = this.calls[i];
    if (!call) throw new Error(`the inner lock was asked ${this.calls.length} times, not ${i + 1}`);
    return call;
  }
}

const opts = (owner: string, extra: Partial<AcquireOptions> = {}): AcquireOptions => ({ ttlMs: 30_000, waitMs: 60_000, retryMs: 10, owner, ...extra });

/** What an acquire came to, without letting its rejection go unhandled. */
const outcome = (p: Promise<Lease>): Promise<Lease | Error> =>
  p.then(
    (l) => l,
    (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
  );

/** `n` requests queued in order behind a busy line, each checked to be in line before the next. */
function queue(line: ProcessLine, owners: readonly string[]): Promise<Lease | Error>[] {
  return owners.map((owner) => {
    const before = line.waiting(R);
    const p = outcome(line.acquire(R, opts(owner)));
    expect(line.waiting(R), `${owner} waits in line`).toBe(before + 1);
    return p;
  });
}

async function leaseOfOutcome(p: Promise<Lease | Error>): Promise<Lease> {
  const got = await p;
  if (got instanceof Error) throw got;
  return got;
}

/** A line over a fresh fake inner lock, held by `owner` on the inner lock's first grant (token `token`). */
async function heldLine({ owner = 'A', token = 10n, tokenRoom }: { owner?: string; token?: bigint; tokenRoom?: number } = {}) {
  const inner = new FakeLock();
  const line = new ProcessLine(inner, tokenRoom);
  const a = line.acquire(R, opts(owner));
  inner.grant(0, token);
  return { inner, line, lease: await a };
}

describe('ProcessLine: a hold lost while requests wait in line', () => {
  it("the holder's release does not pass a lost hold: the next waiter asks the inner lock for a fresh grant", async () => {
    const { inner, line, lease: held } = await heldLine();
    const [b, c] = queue(line, ['B', 'C']);

    inner.grants[0]!.lost.abort(new Error('session expired'));
    // The release of a lost hold is refused by the inner lock; the line moves on all the same.
    await expect(held.release()).rejects.toBeInstanceOf(LockNotHeldError);
    expect(inner.grants[0]!.released).toBe(true);

    expect(inner.calls.map((x) => x.owner)).toEqual(['A', 'B']);
    expect(await isSettled(b!)).toBe(false);
    inner.grant(1, 20n);
    const bLease = await leaseOfOutcome(b!);
    expect(bLease.lost.aborted).toBe(false);
    expect(await bLease.fencingToken!()).toBe(20n);
    expect(line.stats).toEqual({ innerGrants: 2, passes: 0 });
    expect(line.waiting(R)).toBe(1);

    // The fresh hold is passed on as usual.
    await bLease.release();
    const cLease = await leaseOfOutcome(c!);
    expect(await cLease.fencingToken!()).toBe(21n);
    expect(line.stats).toEqual({ innerGrants: 2, passes: 1 });
    await cLease.release();
    expect(inner.grants.map((g) => g.released)).toEqual([true, true]);
  });

  it('a hold lost in the middle of a run of passes ends the run there: the next waiter asks afresh', async () => {
    const { inner, line, lease: aLease } = await heldLine();
    const [b, c] = queue(line, ['B', 'C']);

    await aLease.release();
    const bLease = await leaseOfOutcome(b!);
    expect(line.stats.passes).toBe(1);
    inner.grants[0]!.lost.abort(new Error('validity ran out'));
    // The pass shares the run's hold, so it learns of the loss as the first holder would.
    expect(bLease.lost.aborted).toBe(true);
    await expect(bLease.release()).rejects.toBeInstanceOf(LockNotHeldError);

    expect(inner.calls.map((x) => x.owner)).toEqual(['A', 'C']);
    inner.grant(1, 20n);
    const cLease = await leaseOfOutcome(c!);
    expect(cLease.lost.aborted).toBe(false);
    expect(line.stats).toEqual({ innerGrants: 2, passes: 1 });
    await cLease.release();
  });

  it("a validity that runs out by the lease's own clock (RedLock's) is not passed on either", async () => {
    const inner = new FakeLock();
    const line = new ProcessLine(inner);
    const a = line.acquire(R, opts('A'));
    // A validity already ended: the lease's own signal, not the test's abort, says the hold is gone.
    const validity = expiringAt(Date.now() + 1, 'RedLock validity ran out');
    inner.grant(0, 10n, validity.lost);
    const aLease = await a;
    const [b] = queue(line, ['B']);
    if (!aLease.lost.aborted) await once(aLease.lost, 'abort');

    await expect(aLease.release()).rejects.toBeInstanceOf(LockNotHeldError);
    expect(inner.calls.map((x) => x.owner)).toEqual(['A', 'B']);
    inner.grant(1, 20n);
    expect((await leaseOfOutcome(b!)).lost.aborted).toBe(false);
    expect(line.stats.passes).toBe(0);
  });
});

describe('ProcessLine: a head whose inner acquire fails', () => {
  it('the line moves on: each next waiter asks in turn, and the line ends idle', async () => {
    const inner = new FakeLock();
    const line = new ProcessLine(inner);
    const a = outcome(line.acquire(R, opts('A')));
    const [b, c] = queue(line, ['B', 'C']);
    expect(inner.calls.map((x) => x.owner)).toEqual(['A']);

    const down = new Error('dependency down: ECONNREFUSED');
    inner.call(0).answer.reject(down);
    expect(await a).toBe(down);
    expect(inner.calls.map((x) => x.owner)).toEqual(['A', 'B']);

    const timedOut = new LockTimeoutError(R, 60_000);
    inner.call(1).answer.reject(timedOut);
    expect(await b!).toBe(timedOut);
    expect(inner.calls.map((x) => x.owner)).toEqual(['A', 'B', 'C']);
    expect(line.waiting(R)).toBe(0);

    inner.grant(2, 30n);
    const cLease = await leaseOfOutcome(c!);
    await cLease.release();
    expect(inner.grants[0]!.released).toBe(true);
    expect(line.stats).toEqual({ innerGrants: 1, passes: 0 });

    // Idle: the next request asks the inner lock at once instead of queueing behind a stale `busy`.
    void outcome(line.acquire(R, opts('D')));
    expect(inner.calls.map((x) => x.owner)).toEqual(['A', 'B', 'C', 'D']);
    expect(line.waiting(R)).toBe(0);
  });

  it('a lone head whose acquire fails leaves the line idle', async () => {
    const inner = new FakeLock();
    const line = new ProcessLine(inner);
    const a = outcome(line.acquire(R, opts('A')));
    const down = new Error('dependency down');
    inner.call(0).answer.reject(down);
    expect(await a).toBe(down);

    const b = line.acquire(R, opts('B'));
    expect(inner.calls.map((x) => x.owner)).toEqual(['A', 'B']);
    inner.grant(1, 10n);
    await (await b).release();
  });

  it('an inner lock that throws before it returns a promise is a failed acquire like any other', async () => {
    const inner = new FakeLock();
    const broken: Lock = {
      acquire: (resource, o) => {
        if (o.owner === 'A') throw new TypeError('bad options');
        return inner.acquire(resource, o);
      },
    };
    const line = new ProcessLine(broken);
    const a = outcome(line.acquire(R, opts('A')));
    expect(await a).toBeInstanceOf(TypeError);
    const b = line.acquire(R, opts('B'));
    expect(inner.calls.map((x) => x.owner)).toEqual(['B']);
    inner.grant(0, 10n);
    await (await b).release();
  });
});

describe('ProcessLine: waiters that leave, and the tokens of passes', () => {
  it('a waiter that times out in line is never handed the grant: the pass goes to the one behind it', async () => {
    const { inner, line, lease: aLease } = await heldLine();
    // B's wait is short; A holds until the test releases it, so B times out however slow the machine.
    const b = outcome(line.acquire(R, opts('B', { waitMs: 1 })));
    const [c] = queue(line, ['C']);
    expect(await b).toBeInstanceOf(LockTimeoutError);
    expect(line.waiting(R)).toBe(1);

    await aLease.release();
    const cLease = await leaseOfOutcome(c!);
    expect(await cLease.fencingToken!()).toBe(11n);
    expect(line.stats).toEqual({ innerGrants: 1, passes: 1 });
    await cLease.release();
    expect(inner.grants[0]!.released).toBe(true);
  });

  it('a waiter aborted in line is never handed the grant, and one aborted before it queues never joins', async () => {
    const { inner, line, lease: aLease } = await heldLine();

    const client = new AbortController();
    const gone = new Error('the client left');
    const b = outcome(line.acquire(R, opts('B', { signal: client.signal })));
    const [c] = queue(line, ['C']);
    client.abort(gone);
    expect(await b).toBe(gone);
    expect(line.waiting(R)).toBe(1);

    const early = new Error('left before queueing');
    expect(await outcome(line.acquire(R, opts('E', { signal: AbortSignal.abort(early) })))).toBe(early);
    expect(line.waiting(R)).toBe(1);

    await aLease.release();
    const cLease = await leaseOfOutcome(c!);
    expect(await cLease.fencingToken!()).toBe(11n);
    await cLease.release();
    expect(line.stats).toEqual({ innerGrants: 1, passes: 1 });
    expect(inner.calls.map((x) => x.owner)).toEqual(['A']);
  });

  it(`tokens grow by one per pass within a run; after ${MAX_HANDOFF_STREAK} passes the next waiter asks afresh`, async () => {
    const { inner, line, lease: first } = await heldLine({ owner: 'p0', token: 100n });
    let lease = first;
    const rest = queue(
      line,
      Array.from({ length: MAX_HANDOFF_STREAK + 1 }, (_, i) => `p${i + 1}`),
    );
    const tokens = [await lease.fencingToken!()];
    for (const next of rest.slice(0, MAX_HANDOFF_STREAK)) {
      await lease.release();
      lease = await leaseOfOutcome(next);
      tokens.push(await lease.fencingToken!());
    }
    expect(tokens).toEqual(Array.from({ length: MAX_HANDOFF_STREAK + 1 }, (_, i) => 100n + BigInt(i)));
    // One read of the inner token serves the whole run.
    expect(inner.grants[0]!.tokenReads).toBe(1);

    await lease.release();
    expect(inner.grants[0]!.released).toBe(true);
    expect(inner.calls.map((x) => x.owner)).toEqual(['p0', `p${MAX_HANDOFF_STREAK + 1}`]);
    inner.grant(1, 200n);
    const last = await leaseOfOutcome(rest[MAX_HANDOFF_STREAK]!);
    expect(await last.fencingToken!()).toBe(200n);
    expect(line.stats).toEqual({ innerGrants: 2, passes: MAX_HANDOFF_STREAK });
    await last.release();
  });

  it("a run ends when it has used the inner token order's room, before the streak's end", async () => {
    const { inner, line, lease: aLease } = await heldLine({ tokenRoom: 2 });
    const [b, c] = queue(line, ['B', 'C']);
    await aLease.release();
    const bLease = await leaseOfOutcome(b!);
    expect(await bLease.fencingToken!()).toBe(11n);
    await bLease.release();
    expect(inner.calls.map((x) => x.owner)).toEqual(['A', 'C']);
    inner.grant(1, 20n);
    expect(await (await leaseOfOutcome(c!)).fencingToken!()).toBe(20n);
  });
});

describe('ProcessLine: what it declares, what it reports, and what a wait leaves behind', () => {
  it("declares the inner lock's fencing, expiry and lost-acquire, which the route and the docs read", () => {
    const fenced: Lock = {
      fencing: 'zookeeper',
      expiry: 'session',
      lostAcquire: 'expires with its lease',
      acquire: async () => Promise.reject(new Error('not asked')),
    };
    const line = new ProcessLine(fenced);
    expect([line.fencing, line.expiry, line.lostAcquire]).toEqual(['zookeeper', 'session', 'expires with its lease']);
    expect(new ProcessLine(new FakeLock()).fencing).toBeUndefined();
  });

  it('a request with no time left never asks the inner lock: LockTimeoutError, and the line stays idle', async () => {
    const inner = new FakeLock();
    const line = new ProcessLine(inner);
    expect(await outcome(line.acquire(R, opts('A', { waitMs: 0 })))).toBeInstanceOf(LockTimeoutError);
    expect(inner.calls).toEqual([]);
    const b = line.acquire(R, opts('B'));
    expect(inner.calls.map((x) => x.owner)).toEqual(['B']);
    inner.grant(0, 10n);
    await (await b).release();
  });

  it('counts nobody waiting on a resource it has never seen, or whose line has ended', async () => {
    const inner = new FakeLock();
    const line = new ProcessLine(inner);
    expect(line.waiting('never-asked')).toBe(0);
    const a = line.acquire(R, opts('A'));
    inner.grant(0, 10n);
    await (await a).release();
    expect(line.waiting(R)).toBe(0);
  });

  it('over a lock that issues no tokens, its leases carry none', async () => {
    const inner = new FakeLock();
    const tokenless: Lock = {
      acquire: async (resource, o) => {
        const lease = await inner.acquire(resource, o);
        return leaseOf(R, lease.lost, () => lease.release());
      },
    };
    const line = new ProcessLine(tokenless);
    const a = line.acquire(R, opts('A'));
    inner.grant(0, 10n);
    const aLease = await a;
    const [b] = queue(line, ['B']);
    expect(aLease.fencingToken).toBeUndefined();
    await aLease.release();
    const bLease = await leaseOfOutcome(b!);
    expect(bLease.fencingToken).toBeUndefined();
    await bLease.release();
    expect(line.stats).toEqual({ innerGrants: 1, passes: 1 });
  });

  it("reports each pass as a 'handoff' to the releasing request's observer, and a give-back as none", async () => {
    const { line, lease: aLease } = await heldLine();
    const events: LockEvent[] = [];
    const observer = { waited: () => undefined, held: () => undefined, event: (kind: LockEvent) => void events.push(kind) };
    const [b] = queue(line, ['B']);
    await observedBy(observer, () => aLease.release());
    expect(events).toEqual(['handoff']);
    await observedBy(observer, async () => (await leaseOfOutcome(b!)).release());
    expect(events).toEqual(['handoff']);
  });

  it("a waiter served before its deadline leaves no timer running and no listener on its request's signal", async () => {
    const { line, lease: aLease } = await heldLine();
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    // The request's signal lives as long as the request: a listener left per wait would pile up on it.
    const request = new AbortController();
    const b = outcome(line.acquire(R, opts('B', { signal: request.signal })));
    expect(line.waiting(R)).toBe(1);
    expect(getEventListeners(request.signal, 'abort')).toHaveLength(1);
    expect(timers()).toBe(before + 1);

    await aLease.release();
    const bLease = await leaseOfOutcome(b);
    expect(getEventListeners(request.signal, 'abort')).toHaveLength(0);
    expect(timers()).toBe(before);
    await bLease.release();
  });
});
