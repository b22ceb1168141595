/** A timer-based pause (never a busy wait). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Milliseconds left before `deadline` (a Date.now() value), never negative. */
export function remaining(deadline: number): number {
  return Math.max(0, deadline - Date.now());
}
