import type { LockOptions } from '../lock.js';
import { currentOwner } from '../owner.js';
import { pollUntilAcquired } from '../poll.js';
import { redisCall, stringLockKey } from './keys.js';

export interface StringLockHold {
  key: string;
  /** The value written into the key: the current owner's token. */
  owner: string;
}

/** Polls `trySet` (a SETNX-style write of the owner's token) until it wins or waitMs runs out. */
export async function pollStringLock(
  resource: string,
  opts: LockOptions,
  trySet: (key: string, owner: string) => Promise<boolean>,
): Promise<StringLockHold> {
  const key = stringLockKey(resource);
  const owner = currentOwner();
  await pollUntilAcquired(resource, opts, () => redisCall(() => trySet(key, owner)));
  return { key, owner };
}
