// The deductions this instance is running: capped (a fast 503 busy beyond the cap), each with a
// signal that aborts when its client leaves or when a drain gives up on it, and drained on shutdown.
import type { Response } from 'express';

/** The service is shutting down: a deduction not started, or given up on, sells nothing. */
export class ShuttingDownError extends Error {
  constructor() {
    // Stryker disable next-line StringLiteral: log text only; the answer (503 shutting_down) comes from the class (http/errors.ts)
    super('this instance is shutting down; nothing was sold');
  }
}

/** The client closed its connection before the deduction wrote: it stops, and sells nothing. */
export class ClientGoneError extends Error {
  constructor() {
    // Stryker disable next-line StringLiteral: log text only; the answer (503 client_gone) comes from the class (http/errors.ts)
    super('the client left before the write; nothing was sold');
  }
}

/** More deductions in flight on this instance than its cap: refused at once, nothing sold. */
export class BusyError extends Error {
  constructor(limit: number) {
    // Stryker disable next-line StringLiteral: log text only; the answer (503 busy) comes from the class (http/errors.ts)
    super(`${limit} deductions already in flight on this instance`);
  }
}

/** Each admitted request's signal, for a handler behind a middleware that admitted it. */
const signals = new WeakMap<Response, AbortSignal>();

/** The signal `InFlight.admit` gave this response; throws if it was never admitted (a route wired wrong). */
export function admittedSignal(res: Response): AbortSignal {
  const signal = signals.get(res);
  if (!signal) throw new Error('this request was not admitted (InFlight.admit)');
  return signal;
}

export class InFlight {
  private readonly running = new Set<AbortController>();
  private draining = false;
  private idle: (() => void) | undefined;

  constructor(private readonly limit: number) {}

  get count(): number {
    return this.running.size;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /**
   * Admits one deduction, or throws (BusyError past the cap, ShuttingDownError while draining).
   * Returns its signal; the deduction ends when the response does.
   */
  admit(res: Response): AbortSignal {
    if (this.draining) throw new ShuttingDownError();
    if (this.running.size >= this.limit) throw new BusyError(this.limit);
    const controller = new AbortController();
    this.running.add(controller);
    signals.set(res, controller.signal);
    // 'close' before the answer was sent: the client (or nginx for it) hung up.
    res.once('close', () => {
      if (!res.writableFinished) controller.abort(new ClientGoneError());
      this.running.delete(controller);
      if (this.running.size === 0) this.idle?.();
    });
    return controller.signal;
  }

  /**
   * Stops admitting, waits up to `budgetMs` for the running deductions, then aborts the rest (they
   * skip their write, release their locks and answer 503 shutting_down) and waits up to `abortMs`
   * for them to answer.
   */
  async drain(budgetMs: number, abortMs: number): Promise<{ finished: number; aborted: number }> {
    this.draining = true;
    const before = this.running.size;
    await this.untilIdle(budgetMs);
    const aborted = this.running.size;
    for (const c of this.running) c.abort(new ShuttingDownError());
    await this.untilIdle(abortMs);
    return { finished: before - aborted, aborted };
  }

  private untilIdle(timeoutMs: number): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.idle = done;
    });
  }
}
