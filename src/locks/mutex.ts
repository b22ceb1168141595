// mutex (course §1.5): one async-mutex per resource in this process, as Java's synchronized. It
// serializes one instance only; three instances behind nginx oversell again (§1.6).
import { Mutex, withTimeout, E_TIMEOUT } from 'async-mutex';
import { LockTimeoutError } from './errors.js';
import { leaseOf, neverLost, type AcquireOptions, type Lease, type Lock } from './lock.js';

/**
 * The in-process lock (Java's synchronized / ReentrantLock): one mutex per resource in this
 * process only, so it serializes one instance and nothing across instances.
 */
export class InProcessMutexLock implements Lock {
  private readonly mutexes = new Map<string, Mutex>();

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    let mutex = this.mutexes.get(resource);
    if (!mutex) {
      mutex = new Mutex();
      this.mutexes.set(resource, mutex);
    }
    let release: () => void;
    try {
      release = await withTimeout(mutex, opts.waitMs).acquire();
    } catch (err) {
      if (err === E_TIMEOUT) throw new LockTimeoutError(resource, opts.waitMs);
      throw err;
    }
    return leaseOf(resource, neverLost, async () => release());
  }
}
