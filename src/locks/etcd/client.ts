// The etcd client every etcd lock shares, bounded so that a down etcd answers a fast 503 naming it
// rather than a request that hangs on the client's reconnects and retries.
import { Etcd3, isRecoverableError, ClientClosedError, type IRangeRequest } from 'etcd3';
import { DependencyDownError } from '../../dependency.js';

/** gRPC's call options, as etcd3's calls take them. */
export type CallOptions = NonNullable<Parameters<Etcd3['kv']['range']>[1]>;

/** Where the lab keeps every etcd lock key; a reset deletes it all. */
export const ETCD_LOCK_ROOT = 'stocklab/locks/';

/**
 * The longest one call may take, retries included: etcd3 retries a failed call (three attempts) and
 * keeps reconnecting, and each call passes an absolute deadline, which its retries share.
 */
export const ETCD_CALL_MS = 2_000;

/** A call's options: its deadline, absolute, so the client's own retries cannot outlast it. */
export function callBound(deadline = Date.now() + ETCD_CALL_MS): CallOptions {
  return { deadline: Math.min(deadline, Date.now() + ETCD_CALL_MS) };
}

/**
 * One client over `endpoints`. Its default deadline covers the calls stocklab does not make itself
 * (the etcd3 package's own lock); the circuit breaker it keeps per host (open 5 s after three
 * failures in a row) turns a down etcd into an immediate refusal.
 */
export function openEtcd(endpoints: readonly string[]): Etcd3 {
  return new Etcd3({
    hosts: [...endpoints],
    dialTimeout: ETCD_CALL_MS,
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + ETCD_CALL_MS }),
  });
}

/** True when an etcd call failed for want of a reachable server (as opposed to an answer that says no). */
export function isEtcdDown(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  // cockatiel's BrokenCircuitError (the breaker is open): matched by name, cockatiel being etcd3's own.
  return isRecoverableError(err) || err instanceof ClientClosedError || err.name === 'BrokenCircuitError' || /circuit breaker is open/i.test(err.message);
}

/** Runs an etcd call, naming etcd when it turns out to be down. */
export async function etcdCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof DependencyDownError) throw err;
    throw isEtcdDown(err) ? new DependencyDownError('etcd', err) : err;
  }
}

/** The range of every key under `prefix` (etcd's range_end: the prefix with its last byte plus one). */
export function prefixRange(prefix: string): Pick<IRangeRequest, 'key' | 'range_end'> {
  const key = Buffer.from(prefix);
  const end = Buffer.from(key);
  end[end.length - 1] = (end[end.length - 1] as number) + 1;
  return { key, range_end: end };
}

/** Deletes every lock key the lab wrote (POST /stock/reset); the leases live on until their holders end them. */
export async function clearEtcdLocks(client: Etcd3): Promise<void> {
  await etcdCall(() => client.kv.deleteRange(prefixRange(ETCD_LOCK_ROOT), callBound()));
}
