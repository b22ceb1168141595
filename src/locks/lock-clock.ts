// The clock a lock that stores timestamps reads (redis-setnx-getset): this process's clock, plus an
// offset the fault lab may set (FAULT_INJECTION=1 only, POST /fault/clock) to play an instance
// whose clock is off. One per process, as a real clock is one per machine.

/** The largest offset the lab may set either way: an hour. */
export const LOCK_CLOCK_OFFSET_MAX_MS = 3_600_000;

export class LockClock {
  private offset = 0;

  now(): number {
    return Date.now() + this.offset;
  }

  get offsetMs(): number {
    return this.offset;
  }

  set offsetMs(ms: number) {
    if (!Number.isInteger(ms) || Math.abs(ms) > LOCK_CLOCK_OFFSET_MAX_MS)
      throw new RangeError(`clock offset must be a whole number of ms within ±${LOCK_CLOCK_OFFSET_MAX_MS}`);
    this.offset = ms;
  }
}

/** This process's lock clock. */
export const lockClock = new LockClock();
