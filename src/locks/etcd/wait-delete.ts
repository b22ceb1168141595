// A watch on one key until it is deleted, bounded by a deadline, the caller's signal and the
// connection: a waiter whose watch stream drops stops with a 503 instead of waiting on.
import type { Etcd3 } from 'etcd3';
import { DependencyDownError } from '../../dependency.js';
import { remaining } from '../../time.js';

/**
 * Resolves 'deleted' once `key` is deleted at or after `fromRev` (the revision after the read that
 * found it, so a delete between that read and the watch is not missed), or 'expired' at `deadline`.
 */
export function waitDelete(client: Etcd3, key: Buffer, fromRev: bigint, deadline: number, signal?: AbortSignal): Promise<'deleted' | 'expired'> {
  const watcher = client.watch().key(key).startRevision(String(fromRev)).only('delete').watcher();
  return new Promise<'deleted' | 'expired'>((resolve, reject) => {
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      watcher.removeAllListeners();
      watcher.on('error', () => undefined);
      void watcher.cancel().catch(() => undefined);
      settle();
    };
    const onAbort = () => finish(() => reject(signal?.reason));
    const timer = setTimeout(() => finish(() => resolve('expired')), remaining(deadline));
    watcher.on('delete', () => finish(() => resolve('deleted')));
    watcher.on('disconnected', (err) => finish(() => reject(new DependencyDownError('etcd', err))));
    watcher.on('error', (err) => finish(() => reject(new DependencyDownError('etcd', err))));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
