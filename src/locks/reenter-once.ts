// The reentrant strategies' scope: the same owner takes the lock twice, nested, as Java's a()
// calling b() would. A reentrant lock passes; a non-reentrant one waits for itself until waitMs.
import type { AcquireOptions, Lease, LeaseExtras, Lock } from './lock.js';
import { heldOf, withLock, type Held, type Scoped } from './scope.js';

/**
 * withLock, entered twice by the same owner and left inner first, as nested code would (Java's a()
 * calling b(), both synchronized). A reentrant lock passes straight through; a non-reentrant one
 * waits for itself until waitMs.
 */
export async function withLockReentered<T, L extends Lease>(
  lock: Lock<L>,
  resource: string,
  opts: AcquireOptions,
  work: (held: Held<LeaseExtras<L>>) => Promise<T>,
): Promise<Scoped<T>> {
  const outer = await withLock(lock, resource, opts, (outerHeld) =>
    withLock(lock, resource, opts, (innerHeld) =>
      work(heldOf(resource, opts.owner, AbortSignal.any([outerHeld.lost, innerHeld.lost]), innerHeld.extras, innerHeld.fencingToken)),
    ),
  );
  const inner = outer.value;
  const releaseError = inner.releaseError ?? outer.releaseError;
  return { value: inner.value, ...(releaseError && { releaseError }) };
}
