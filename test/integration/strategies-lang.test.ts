// GET /strategies speaks the course's language on request: every strategy's description (and the
// course label that is words) exists in English and in Chinese, and the route picks one from ?lang=
// or Accept-Language; a lang it does not speak is a 400 naming the field, like every bad parameter.
import { describe, expect, it } from 'vitest';
import { sharedCluster } from '../support/cluster.js';
import { getJson } from '../support/lock-helpers.js';

const cluster = sharedCluster();
const instance = cluster.instances[0]!;

type Listed = { name: string; course: string; description: string };
const han = /\p{Script=Han}/u;

async function strategies(query: string, headers: Record<string, string> = {}): Promise<Listed[]> {
  const { status, body } = await getJson(`${instance}/strategies${query}`, headers);
  expect(status).toBe(200);
  return body.strategies as Listed[];
}

describe('GET /strategies in each language', () => {
  it('describes every strategy in English and in Chinese, with the same names in the same order', async () => {
    const [en, zh] = await Promise.all([strategies('?lang=en'), strategies('?lang=zh')]);
    expect(zh.map((s) => s.name)).toEqual(en.map((s) => s.name));
    expect(en.length).toBeGreaterThan(30);
    for (const [e, z] of en.map((s, i) => [s, zh[i]!] as const)) {
      expect(e.description.trim(), e.name).not.toBe('');
      expect(han.test(e.description), `${e.name}: English description`).toBe(false);
      expect(han.test(z.description), `${z.name}: Chinese description`).toBe(true);
      // a § key reads alike in both; "beyond the course" is words, and translated
      expect(z.course, z.name).toBe(e.course.startsWith('§') ? e.course : '课程之外');
    }
  });

  it('follows ?lang=, then Accept-Language, and answers English otherwise', async () => {
    const describe = async (query: string, headers?: Record<string, string>) => (await strategies(query, headers)).find((s) => s.name === 'none')!.description;
    const en = await describe('?lang=en');
    const zh = await describe('?lang=zh');
    expect(await describe('')).toBe(en);
    expect(await describe('', { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8' })).toBe(zh);
    expect(await describe('', { 'accept-language': 'fr-FR, en;q=0.5, zh;q=0.4' })).toBe(en);
    expect(await describe('', { 'accept-language': 'de' })).toBe(en);
    expect(await describe('?lang=en', { 'accept-language': 'zh-CN' })).toBe(en);
  });

  it('refuses a lang it does not speak, naming the field', async () => {
    const { status, body } = await getJson(`${instance}/strategies?lang=fr`);
    expect(status).toBe(400);
    expect(body).toMatchObject({ ok: false, error: 'bad_request', param: 'lang', valid: ['en', 'zh'] });
  });
});
