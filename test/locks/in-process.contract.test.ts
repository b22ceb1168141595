// The in-process mutex under the lock contract, and the contract's own exclusion check shown to
// catch a lock that does not exclude.
import { describe, expect, it } from 'vitest';
import { leaseOf, neverLost, type Lock } from '../../src/locks/lock.js';
import { InProcessMutexLock } from '../../src/locks/mutex.js';
import { contend, lockContract } from '../support/lock-contract.js';

lockContract('mutex (in-process)', { reentrant: false, lost: 'never' }, async () => ({ lock: new InProcessMutexLock() }));

describe('the contract itself', () => {
  it('fails a lock that lets everyone in', async () => {
    const everyone: Lock = { acquire: async (resource) => leaseOf(resource, neverLost, async () => undefined) };
    const { mostInside } = await contend(everyone, 'open-door');
    expect(mostInside).toBeGreaterThan(1);
  });
});
