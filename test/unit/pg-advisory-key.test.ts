// The advisory locks' 64-bit keys: the same name gives the same key in every process (the
// instances must lock the same number), names and namespaces give different ones, and every key
// fits PostgreSQL's signed BIGINT.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { advisoryKey } from '../../src/locks/pg/key.js';

const BIGINT_MIN = -(2n ** 63n);
const BIGINT_MAX = 2n ** 63n - 1n;

describe('advisoryKey', () => {
  it('is the first 8 bytes of SHA-256 over namespace:resource, read as a signed big-endian BIGINT', () => {
    const digest = createHash('sha256').update('pg-advisory:stock:1001:001').digest('hex');
    expect(BigInt.asUintN(64, advisoryKey('pg-advisory', 'stock:1001:001')).toString(16).padStart(16, '0')).toBe(digest.slice(0, 16));
  });

  it('is the same for the same name, and differs across names and namespaces', () => {
    expect(advisoryKey('pg-advisory', 'stock:1001:001')).toBe(advisoryKey('pg-advisory', 'stock:1001:001'));
    expect(advisoryKey('pg-advisory', 'stock:1001:001')).not.toBe(advisoryKey('pg-advisory', 'stock:1001:002'));
    expect(advisoryKey('pg-advisory', 'stock:1001:001')).not.toBe(advisoryKey('pg-advisory-session', 'stock:1001:001'));
  });

  it('stays within BIGINT, negative keys included (half of all names give one)', () => {
    const keys = Array.from({ length: 200 }, (_, i) => advisoryKey('ns', `resource-${i}`));
    expect(keys.every((k) => k >= BIGINT_MIN && k <= BIGINT_MAX)).toBe(true);
    expect(keys.some((k) => k < 0n)).toBe(true);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
