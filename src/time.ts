// Time, the one way: the machine's monotonic clock, timer-based pauses and deadline-bounded polls (never a busy wait).

/** CLOCK_MONOTONIC in milliseconds: the same clock in every process of this machine. */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** A timer-based pause; with `signal`, cut short by its abort (rejecting with the signal's reason). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (!signal) return new Promise((resolve) => setTimeout(resolve, ms));
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Milliseconds left before `deadline` (a Date.now() value), never negative. */
export function remaining(deadline: number): number {
  return Math.max(0, deadline - Date.now());
}

/**
 * Asks `check` every `intervalMs` until it answers true or `timeoutMs` has passed; resolves whether
 * it came true. The last check runs at or after the deadline, so a slow check is never cut short.
 */
export async function pollUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    const left = remaining(deadline);
    if (left <= 0) return false;
    await sleep(Math.min(intervalMs, left));
  }
}

/** Whether `p` settles within `ms` (its rejection counts as settling); never rejects. The timer never keeps the process alive. */
export function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([
    p.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref()),
  ]);
}
