// The library baselines under the same lock contract as stocklab's locks, against three Redis
// servers of their own: redis-semaphore's Mutex (one server), its RedlockMutex and the redlock
// package's using() (all three as masters). Their release does not report a lease that had run
// out, so the late-release case does not apply (no `lateRelease` claim).
import type { Redis } from 'ioredis';
import { LibMutexLock, LibRedlockMutexLock } from '../../src/locks/library/redis-semaphore.js';
import { LibRedlockUsingLock } from '../../src/locks/library/redlock-using.js';
import type { Lock } from '../../src/locks/lock.js';
import { redlockKey } from '../../src/locks/redis/keys.js';
import { Redlock } from '../../src/locks/redis/redlock/package.js';
import { lockContract } from '../support/lock-contract.js';
import { withServers } from '../support/servers.js';
import { openRedis } from '../support/redis-client.js';

const servers = withServers({ redis: 3 });

/** A library lock over `count` of the servers; `key` is where it keeps a resource's hold. */
function library(name: string, count: number, key: (resource: string) => string, make: (clients: Redis[]) => Lock): void {
  lockContract(name, { reentrant: false, lost: 'fires' }, async () => {
    const clients = await Promise.all(servers.current.redis.slice(0, count).map(openRedis));
    const takeAway = async (resource: string) => void (await Promise.all(clients.map((c) => c.del(key(resource)))));
    return {
      lock: make(clients),
      takeAway,
      // The library's refresh (or extension) finds the key gone and reports the loss.
      loseHold: takeAway,
      close: async () => clients.forEach((c) => c.disconnect()),
    };
  });
}

const semaphoreKey = (resource: string) => `mutex:lock:lib:${resource}`;

library('lib-redis-semaphore (Mutex)', 1, semaphoreKey, ([redis]) => new LibMutexLock(redis!));
library('lib-redlock-mutex (RedlockMutex, 3 masters)', 3, semaphoreKey, (clients) => new LibRedlockMutexLock(clients));
library(
  'lib-redlock (redlock using(), 3 masters)',
  3,
  (r) => redlockKey(`lib:${r}`),
  (clients) => {
    const redlock = new Redlock(clients, { driftFactor: 0.01 });
    redlock.on('error', () => undefined);
    return new LibRedlockUsingLock(redlock);
  },
);
