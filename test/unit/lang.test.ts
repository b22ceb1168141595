// How an answer's language is chosen: ?lang= (en or zh only), then Accept-Language by q, then English.
import { describe, expect, it } from 'vitest';
import { BadRequestError, parseLang } from '../../src/http/params.js';
import { acceptedLanguages, firstKnownLang } from '../../src/lang.js';

describe('the language of an answer', () => {
  it('reads Accept-Language by q, then by order, and drops q=0', () => {
    expect(acceptedLanguages('zh-CN,zh;q=0.9,en;q=0.8')).toEqual(['zh-CN', 'zh', 'en']);
    expect(acceptedLanguages('en;q=0.3, zh-TW;q=0.7, *;q=0.1')).toEqual(['zh-TW', 'en']);
    expect(acceptedLanguages('zh;q=0, en')).toEqual(['en']);
    expect(acceptedLanguages(undefined)).toEqual([]);
    expect(firstKnownLang(['fr-FR', 'ZH-cn'])).toBe('zh');
    expect(firstKnownLang(['fr'])).toBe('en');
  });

  it('takes ?lang= over the header, and refuses any other value naming the field', () => {
    expect(parseLang({ lang: 'zh' }, 'en-US')).toBe('zh');
    expect(parseLang({ lang: 'en' }, 'zh-CN')).toBe('en');
    expect(parseLang({}, 'fr, zh-CN;q=0.8')).toBe('zh');
    expect(parseLang({}, undefined)).toBe('en');
    for (const lang of ['fr', 'zh-CN', '', ['en', 'zh']]) {
      const err = (() => {
        try {
          parseLang({ lang }, undefined);
        } catch (e) {
          return e;
        }
      })();
      expect(err, String(lang)).toBeInstanceOf(BadRequestError);
      expect((err as BadRequestError).param).toBe('lang');
    }
  });
});
