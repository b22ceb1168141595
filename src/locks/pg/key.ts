// The 64-bit key of an advisory lock, from the resource's name: PostgreSQL locks numbers, not names.
import { createHash } from 'node:crypto';

/**
 * The first 8 bytes of SHA-256 over `namespace:resource`, as a signed BIGINT (pg_advisory_lock's
 * argument). Computed here, not with hashtext(), whose 32 bits collide sooner and whose values
 * PostgreSQL does not promise to keep across versions. `namespace` keeps each lock's keys apart
 * (the session lock's leaks must not block the transaction lock's strategy).
 */
export function advisoryKey(namespace: string, resource: string): bigint {
  return createHash('sha256').update(`${namespace}:${resource}`).digest().readBigInt64BE(0);
}

/**
 * pg_locks shows a BIGINT key as classid (high 32 bits) and objid (low 32 bits), objsubid 1: this
 * condition matches the rows of key $1 (the shift wraps as the key's two's complement does).
 */
export const PG_LOCKS_KEY_MATCH = "locktype = 'advisory' AND objsubid = 1 AND ((classid::bigint << 32) | objid::bigint) = $1::bigint";
