import { ownerOf, type AcquireOptions } from '../lock.js';
import { pollUntilAcquired } from '../poll.js';
import { stringLockKey } from './keys.js';
import { redisCall } from '../../redis/call.js';

export interface StringLockHold {
  key: string;
  /** The value written into the key: the owner's token. */
  owner: string;
}

/** Polls `trySet` (a SETNX-style write of the owner's token) until it wins or waitMs runs out. */
export async function pollStringLock(
  resource: string,
  opts: AcquireOptions,
  trySet: (key: string, owner: string) => Promise<boolean>,
): Promise<StringLockHold> {
  const key = stringLockKey(resource);
  const owner = ownerOf(opts);
  await pollUntilAcquired(resource, opts, () => redisCall(() => trySet(key, owner)));
  return { key, owner };
}
