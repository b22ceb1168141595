// Fencing tokens (Kleppmann, "How to do distributed locking"): a lock that can hands each holder a
// number larger than every earlier holder's, and the store refuses writes from a smaller one. Shared
// by the locks (which issue tokens) and the stores (which check them), so neither imports the other.

/**
 * Which counter issued a token. Tokens from different counters are not comparable, so a store keeps
 * one fence per source: a ZooKeeper czxid says nothing about a Redis counter's value.
 */
export type FenceSource = 'redis' | 'zookeeper' | 'lock-table' | 'etcd' | 'postgres';

export const FENCE_SOURCES: readonly FenceSource[] = ['redis', 'zookeeper', 'lock-table', 'etcd', 'postgres'];

export interface Fence {
  source: FenceSource;
  token: bigint;
}

/** The store refused a write: a later holder of the lock has claimed the stock since this one did. */
export class FencedError extends Error {
  constructor(fence: Fence, step: 'claim' | 'write') {
    super(`${fence.source} fencing token ${fence.token} is stale: a later holder claimed the stock (refused at ${step}); nothing was written`);
  }
}
