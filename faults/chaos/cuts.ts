// What a partition's grudge could have struck, for the checker: the grudge names nodes by the
// plan's names (app-0… for the instances, redis, redis-replica, sentinel-0…), so a recorded
// history can be judged again on its own.
import { hears, nodesOf, type Grudge } from '../../src/net/grudge.js';
import type { StoreKind } from '../../src/stock/store.js';

/** Some packet between a and b is dropped, one way or both. */
export function cutApart(grudge: Grudge, a: string, b: string): boolean {
  return !hears(grudge, a, b) || !hears(grudge, b, a);
}

const isInstance = (n: string) => n.startsWith('app-');
const isRedisServer = (n: string) => n === 'redis' || n === 'redis-replica';
const isSentinel = (n: string) => n.startsWith('sentinel-');

function anyPairCut(grudge: Grudge, one: (n: string) => boolean, other: (n: string) => boolean): boolean {
  const nodes = nodesOf(grudge);
  return nodes.some((a) => one(a) && nodes.some((b) => a !== b && other(b) && cutApart(grudge, a, b)));
}

/**
 * An instance cut from some server: a holder there cannot renew its lease, or its write waits in
 * TCP's retries and lands after the lease ended. To the lock it is a pause.
 */
export const cutsAnInstance = (grudge: Grudge): boolean => anyPairCut(grudge, isInstance, () => true);

/** A Redis server cut from a Sentinel: Sentinel may fail the master over, losing what it acknowledged (§2.9). */
export const cutsRedisFromSentinel = (grudge: Grudge): boolean => anyPairCut(grudge, isRedisServer, isSentinel);

/** The servers a store's deductions go to (a replicated Redis's master is either). */
const STORE_SERVERS: Readonly<Record<StoreKind, readonly string[]>> = { mysql: ['mysql'], redis: ['redis', 'redis-replica'], postgres: ['postgres'] };

/**
 * The store's server dropped what an instance sent it: a deduction sent then reaches it only when
 * TCP retries it after the heal. (An instance that only stopped hearing the store had its writes
 * applied on time; what it lost were the replies.)
 */
export const holdsUpWritesTo = (grudge: Grudge, store: StoreKind): boolean => STORE_SERVERS[store].some((server) => (grudge[server] ?? []).some(isInstance));
