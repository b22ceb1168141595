// The reports' dictionaries (the bench's and the fault lab's) have the same keys, lists of the same
// length, and no empty text, in English and in Chinese. Their types already refuse a missing key at
// compile time (src/lang.ts's Translation); this checks the running objects too, so a key removed
// from one language fails here as well.
import { describe, expect, it } from 'vitest';
import { BENCH_WORDS } from '../../report/bench/words.js';
import { parseBenchArgs } from '../../bench/options.js';
import { FAULT_WORDS } from '../../faults/report/words.js';
import { parseFaultArgs } from '../../faults/options.js';
import { keyPaths } from '../../src/lang.js';

const han = /\p{Script=Han}/u;

/** Every text of a dictionary with its key path. */
function texts(dict: unknown, prefix = ''): [string, unknown][] {
  if (typeof dict !== 'object' || dict === null) return [[prefix, dict]];
  return Object.entries(dict).flatMap(([k, v]) => texts(v, prefix ? `${prefix}.${k}` : k));
}

describe.each([
  ['bench', BENCH_WORDS],
  ['faults', FAULT_WORDS],
] as const)('the %s report words', (_, words) => {
  it('have the same keys in English and Chinese', () => {
    const en = keyPaths(words.en);
    const zh = keyPaths(words.zh);
    expect(en.length).toBeGreaterThan(10);
    expect(zh.filter((k) => !en.includes(k))).toEqual([]);
    expect(en.filter((k) => !zh.includes(k))).toEqual([]);
  });

  it('have no empty text, and every Chinese text reads Chinese unless it is a name kept as is', () => {
    const en = new Map(texts(words.en));
    for (const [key, value] of texts(words.zh)) {
      expect(['string', 'function'].includes(typeof value), key).toBe(true);
      if (typeof value !== 'string') continue;
      expect(value.trim(), key).not.toBe('');
      expect(value === en.get(key) || han.test(value) || !/[A-Za-z]/.test(value), key).toBe(true);
    }
    for (const [key, value] of texts(words.en)) if (typeof value === 'string') expect(value.trim(), key).not.toBe('');
  });
});

describe('--lang', () => {
  it('is English unless zh is asked for, and nothing else is taken', () => {
    expect(parseBenchArgs([]).lang).toBe('en');
    expect(parseBenchArgs(['--lang', 'zh']).lang).toBe('zh');
    expect(parseFaultArgs(['--lang=zh']).lang).toBe('zh');
    expect(() => parseBenchArgs(['--lang', 'fr'])).toThrow(/--lang must be one of en, zh/);
    expect(() => parseFaultArgs(['--lang', 'zh-CN'])).toThrow(/--lang/);
  });
});
