// One contender per process in front of a lock. A hundred requests of one instance waiting for the
// same ZooKeeper lock each queued a node, listed the queue and were woken in turn: every grant cost
// a delete, a notification, a listing and a create on the ensemble, and the queue each waiter listed
// was a hundred nodes long. Here the requests of one process queue in memory, first come first
// served; only the head of that line asks the lock, and a holder passes its grant straight to the
// next request in line, with no round trip. After MAX_HANDOFF_STREAK passes in a row the holder
// gives the lock back, so the other processes queued on the server get their turn.
//
// Safety across processes stays the inner lock's: the server sees one holder, this process, for
// the whole run of passes. Inside the process the line excludes, as a mutex does. Each pass is a
// grant of its own: its fencing token is the inner grant's plus its place in the run, so tokens
// grow with every grant, within a process and across processes, as long as the inner lock leaves
// room between its tokens (`tokenRoom`).
import type { FenceSource } from '../fencing.js';
import { LockTimeoutError } from './errors.js';
import { reportLockEvent } from './observer.js';
import { MAX_HANDOFF_STREAK } from './handoff.js';
import { leaseOf, type AcquireOptions, type Lease, type Lock } from './lock.js';
import { remaining } from '../time.js';

/** One inner grant and the requests it has served so far in this process. */
interface Run {
  readonly inner: Lease;
  grants: number;
  /** The inner grant's token, read once per run (a ZooKeeper read) however many requests it serves. */
  token?: Promise<bigint>;
}

/** What the line gives a waiter: a grant passed on, or its turn to ask the inner lock. */
type Turn = { run: Run } | { contend: true };

interface Waiter {
  give(turn: Turn): void;
}

interface Line {
  /** Someone of this process holds the lock or is asking the inner lock for it. */
  busy: boolean;
  waiters: Waiter[];
}

export interface ProcessLineStats {
  /** Grants made by the inner lock (each cost its round trips). */
  innerGrants: number;
  /** Grants passed from one request to the next in the process (no round trip). */
  passes: number;
}

/** `I`: the lock it stands in front of, whose declarations (fencing, expiry) it keeps. */
export class ProcessLine<I extends Lock = Lock> implements Lock {
  readonly fencing?: FenceSource;
  readonly expiry: I['expiry'];
  readonly lostAcquire: I['lostAcquire'];
  readonly stats: ProcessLineStats = { innerGrants: 0, passes: 0 };
  private readonly lines = new Map<string, Line>();

  constructor(
    private readonly inner: I,
    /** How many grants the inner lock's token order leaves room for between two of its grants. */
    private readonly tokenRoom = Number.POSITIVE_INFINITY,
  ) {
    if (inner.fencing) this.fencing = inner.fencing;
    this.expiry = inner.expiry;
    this.lostAcquire = inner.lostAcquire;
  }

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const deadline = Date.now() + opts.waitMs;
    const line = this.lineOf(resource);
    let turn: Turn;
    if (!line.busy) {
      line.busy = true;
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: a turn is told by `'run' in turn`; `contend` only names the other kind
      turn = { contend: true };
    } else {
      turn = await this.wait(line, resource, opts, deadline);
    }
    if ('run' in turn) return this.grant(line, resource, turn.run);
    let inner: Lease;
    try {
      if (remaining(deadline) <= 0) throw new LockTimeoutError(resource, opts.waitMs);
      inner = await this.inner.acquire(resource, { ...opts, waitMs: remaining(deadline) });
    } catch (err) {
      this.passTurn(line, resource);
      throw err;
    }
    this.stats.innerGrants++;
    return this.grant(line, resource, { inner, grants: 0 });
  }

  /** The requests of this process waiting in line for `resource` now (tests sequence on it). */
  waiting(resource: string): number {
    return this.lines.get(resource)?.waiters.length ?? 0;
  }

  private lineOf(resource: string): Line {
    let line = this.lines.get(resource);
    if (!line) {
      line = { busy: false, waiters: [] };
      this.lines.set(resource, line);
    }
    return line;
  }

  /** Waits in line until given a turn, the deadline (LockTimeoutError) or the request's abort. */
  private wait(line: Line, resource: string, opts: AcquireOptions, deadline: number): Promise<Turn> {
    return new Promise<Turn>((resolve, reject) => {
      const leave = (err: unknown) => {
        const at = line.waiters.indexOf(waiter);
        // Stryker disable next-line ConditionalExpression: a belt: `done()` stops the timer and the abort listener whenever a waiter leaves the line, so `leave` never runs for one not in it
        if (at < 0) return; // already given its turn
        line.waiters.splice(at, 1);
        done();
        reject(err);
      };
      // Stryker disable next-line OptionalChaining: onAbort is registered only on a signal that exists
      const onAbort = () => leave(opts.signal?.reason);
      const timer = setTimeout(() => leave(new LockTimeoutError(resource, opts.waitMs)), remaining(deadline));
      const done = () => {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        give: (turn) => {
          done();
          resolve(turn);
        },
      };
      if (opts.signal?.aborted) {
        clearTimeout(timer);
        reject(opts.signal.reason);
        return;
      }
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: a signal aborts once, and `done()` removes the listener anyway
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      line.waiters.push(waiter);
    });
  }

  /** The lease one request holds within `run`. */
  private grant(line: Line, resource: string, run: Run): Lease {
    const place = BigInt(run.grants++);
    const innerToken = run.inner.fencingToken?.bind(run.inner);
    return leaseOf(resource, run.inner.lost, () => this.release(line, resource, run), innerToken && (async () => (await (run.token ??= innerToken())) + place));
  }

  /** Passes the grant to the next request in line, or gives it back and lets the next one ask. */
  private async release(line: Line, resource: string, run: Run): Promise<void> {
    const next = line.waiters[0];
    if (next && run.grants <= MAX_HANDOFF_STREAK && run.grants < this.tokenRoom && !run.inner.lost.aborted) {
      line.waiters.shift();
      this.stats.passes++;
      reportLockEvent('handoff');
      next.give({ run });
      return;
    }
    const released = run.inner.release();
    // The next request asks while the release travels: on one connection the server applies them in order.
    this.passTurn(line, resource);
    await released;
  }

  /** The right to ask the inner lock goes to the next request in line, else the line is idle. */
  private passTurn(line: Line, resource: string): void {
    const next = line.waiters.shift();
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: a turn is told by `'run' in turn`; `contend` only names the other kind
    if (next) next.give({ contend: true });
    else {
      // Stryker disable next-line BooleanLiteral: the line is deleted on the next statement; the next request makes a fresh, idle one
      line.busy = false;
      this.lines.delete(resource);
    }
  }
}
