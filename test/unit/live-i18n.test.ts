// The live page's two dictionaries have the same keys, and no entry is empty. The type of `zh`
// already refuses a missing or extra key at compile time; this checks the running objects too.
import { describe, expect, it } from 'vitest';
import { chooseLang, en, zh } from '../../live/page/i18n.js';

describe('live page dictionaries', () => {
  it('have the same keys in English and Chinese', () => {
    const enKeys = Object.keys(en).sort();
    const zhKeys = Object.keys(zh).sort();
    expect(zhKeys.filter((k) => !enKeys.includes(k))).toEqual([]);
    expect(enKeys.filter((k) => !zhKeys.includes(k))).toEqual([]);
  });

  it('has no empty entry, and the Chinese is Chinese', () => {
    for (const [k, v] of [...Object.entries(en), ...Object.entries(zh)]) expect(v.trim(), k).not.toBe('');
    const han = /\p{Script=Han}/u;
    const notHan = Object.entries(zh)
      .filter(([, v]) => !han.test(v))
      .map(([k]) => k);
    expect(notHan).toEqual([]);
  });

  it('follows ?lang=, then the browser languages', () => {
    expect(chooseLang('zh', ['en-US'])).toBe('zh');
    expect(chooseLang(null, ['zh-CN', 'en'])).toBe('zh');
    expect(chooseLang(null, ['fr', 'en-GB'])).toBe('en');
    expect(chooseLang(null, ['fr'])).toBe('en');
  });
});
