// Baselines (issue: every lock beside the libraries a Node user would pick): redis-semaphore's
// Mutex and RedlockMutex behind the same Lock interface, with the request's ttl, wait and retry.
import type { Redis } from 'ioredis';
import { Mutex, RedlockMutex, TimeoutError } from 'redis-semaphore';
import { redisCall } from '../../redis-client/call.js';
import { LockTimeoutError } from '../errors.js';
import { leaseOf, ownerOf, type AcquireOptions, type Lease, type Lock } from '../lock.js';

/** The library's lock of one acquire; it prefixes the key with `mutex:` itself. */
type LibraryLock = Mutex | RedlockMutex;

/** Every key these locks write, for a reset's clean-up: the library prefix plus ours. */
export const LIBRARY_KEY_PATTERN = 'mutex:lock:lib:*';
const libraryKey = (resource: string): string => `lock:lib:${resource}`;

/**
 * As the library is meant to be used: one lock object per acquire, its own retry loop
 * (retryInterval), its own refresh at 0.8 × lockTimeout (its watchdog), and `lost` from its
 * onLockLost. Its release does not say whether the lock was still held, so a late release is silent.
 */
abstract class LibraryMutexLock implements Lock {
  protected abstract make(key: string, options: ConstructorParameters<typeof Mutex>[2]): LibraryLock;

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    ownerOf(opts); // the library makes its own identifier; the owner is checked so every lock asks alike
    const lost = new AbortController();
    const lock = this.make(libraryKey(resource), {
      lockTimeout: opts.ttlMs,
      acquireTimeout: opts.waitMs,
      retryInterval: opts.retryMs,
      onLockLost: (err) => lost.abort(err.message),
    });
    try {
      await redisCall(() => lock.acquire(opts.signal));
    } catch (err) {
      throw err instanceof TimeoutError ? new LockTimeoutError(resource, opts.waitMs) : err;
    }
    return leaseOf(resource, lost.signal, () => redisCall(() => lock.release()));
  }
}

/** redis-semaphore's Mutex on the main Redis. */
export class LibMutexLock extends LibraryMutexLock {
  constructor(private readonly redis: Redis) {
    super();
  }

  protected make(key: string, options: ConstructorParameters<typeof Mutex>[2]): LibraryLock {
    return new Mutex(this.redis, key, options);
  }
}

/** redis-semaphore's RedlockMutex over the RedLock masters. */
export class LibRedlockMutexLock extends LibraryMutexLock {
  constructor(private readonly clients: Redis[]) {
    super();
  }

  protected make(key: string, options: ConstructorParameters<typeof Mutex>[2]): LibraryLock {
    return new RedlockMutex(this.clients, key, options);
  }
}
