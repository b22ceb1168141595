// Wake-ups per hand-off of a ZooKeeper queue lock, counted in this process on a real ZooKeeper: a
// holder, `waiters` queued behind it; then, one hand-off at a time, once the waiters left are all
// parked on their watches, release the holder, wait until the next one holds, and count the
// wake-ups in between. Each waiter holds until it is released here, so every hand-off starts
// with every remaining waiter parked.
import { randomUUID } from 'node:crypto';
import type { Lease, LockOptions } from '../src/locks/lock.js';
import type { QueueLock } from '../src/locks/zk/queue.js';
import { pollUntil } from '../src/time.js';

const OPTS: LockOptions = { ttlMs: 30_000, waitMs: 20_000, retryMs: 10 };

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  if (!(await pollUntil(check, timeoutMs, 5))) throw new Error(`timed out waiting for ${what}`);
}

export async function wakeUpsPerHandOff(lock: QueueLock, waiters: number): Promise<number[]> {
  const resource = `herd-${randomUUID()}`;
  let holder: Lease = await lock.acquire(resource, { ...OPTS, owner: 'holder' });
  const granted: Lease[] = [];
  const queued = Array.from({ length: waiters }, (_, i) => lock.acquire(resource, { ...OPTS, owner: `waiter-${i}` }).then((lease) => void granted.push(lease)));
  const perHandOff: number[] = [];
  try {
    for (let k = 0; k < waiters; k++) {
      await until(`${waiters - k} waiters parked`, () => lock.stats.parked === waiters - k);
      const before = lock.stats.wakeUps;
      await holder.release();
      await until(`hand-off ${k + 1}`, () => granted.length === k + 1);
      perHandOff.push(lock.stats.wakeUps - before);
      holder = granted[k]!;
    }
    await holder.release();
    await Promise.all(queued);
  } catch (err) {
    // the session's close drops what is left; nothing here may wait longer
    void Promise.allSettled(queued);
    throw err;
  }
  return perHandOff;
}
