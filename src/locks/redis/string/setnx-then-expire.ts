// redis-setnx-expire, the course's SETNX then EXPIRE (§2.2): two commands, so a crash between them
// leaves a key with no lease that nothing ever frees. Kept flawed on purpose.
import type { Redis } from 'ioredis';
import { leaseOf, neverLost, ownerOf, type AcquireOptions, type Lease, type Lock } from '../../lock.js';
import { pollUntilAcquired } from '../../poll.js';
import { redisCall } from '../../../redis-client/call.js';
import { stringLockKey } from '../keys.js';
import { undoIfReplyLost } from '../lost-reply.js';
import { releaseOwnedStringLock } from './string-lock.js';

/**
 * docs/course.md §2.2, the course's first remedy for a holder that never deletes its lock: SETNX,
 * then EXPIRE as a second command. Kept flawed on purpose: a holder that dies between the two
 * leaves a lock with no expiry, and nothing ever frees it (pause=after-setnx stops the process
 * there). The release is a blind DEL, as in §2.2. No fencing token: the course's two commands draw none.
 */
export class SetnxThenExpireLock implements Lock {
  readonly expiry = 'lease';
  /** A SETNX whose reply was lost is undone by an owner-checked DEL, as for the other string locks. */
  readonly lostAcquire = 'released by its owner';
  readonly pausePoints = ['after-setnx'] as const;

  constructor(private readonly redis: Redis) {}

  async acquire(resource: string, opts: AcquireOptions): Promise<Lease> {
    const key = stringLockKey(resource);
    const owner = ownerOf(opts);
    await pollUntilAcquired(resource, opts, async () => {
      const set = await undoIfReplyLost(
        () => redisCall(() => this.redis.setnx(key, owner)),
        () => releaseOwnedStringLock(this.redis, resource, key, owner),
      );
      if (set !== 1) return false;
      opts.pause?.('after-setnx');
      await redisCall(() => this.redis.pexpire(key, opts.ttlMs));
      return true;
    });
    return leaseOf(resource, neverLost, () => redisCall(() => this.redis.del(key)));
  }
}
