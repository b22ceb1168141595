// The languages stocklab speaks (the course is Chinese; the code and its names are English), and how
// a client's choice among them is read. Strategy names, endpoints and field names are never translated.

export const LANGS = ['en', 'zh'] as const;
export type Lang = (typeof LANGS)[number];

/** A human text in every language the lab speaks: a missing one fails the type check. */
export type Bilingual = { readonly [L in Lang]: string };

export function isLang(s: unknown): s is Lang {
  return (LANGS as readonly unknown[]).includes(s);
}

/** The first of a client's languages (BCP 47 tags, most wanted first) that the lab speaks; English when none. */
export function firstKnownLang(tags: readonly string[]): Lang {
  for (const tag of tags) {
    const base = tag.trim().toLowerCase().split('-')[0];
    if (isLang(base)) return base;
  }
  return 'en';
}

/** An Accept-Language header's tags, most wanted first (by q, then order); q=0 means "not this one". */
export function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((part, i) => {
      const [tag = '', ...params] = part.split(';').map((s) => s.trim());
      const q = params.map((p) => /^q=([\d.]+)$/i.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag, q: q === undefined ? 1 : Number(q), i };
    })
    .filter((l) => l.tag !== '' && l.tag !== '*' && l.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map((l) => l.tag);
}

/**
 * A dictionary's type from its English original: every text a string, every phrase function the
 * same signature, every list the same length. `zh: Translation<typeof en>` fails to compile when a
 * key is missing, extra, or a list is a line short.
 */
export type Translation<T> = T extends string
  ? string
  : T extends (...args: infer A) => string
    ? (...args: A) => string
    : { readonly [K in keyof T]: Translation<T[K]> };

/** Every key path of a dictionary, for the tests that compare two at run time ("html.title", "definitions.2"). */
export function keyPaths(dict: unknown, prefix = ''): string[] {
  if (typeof dict !== 'object' || dict === null) return [prefix];
  return Object.entries(dict).flatMap(([k, v]) => keyPaths(v, prefix ? `${prefix}.${k}` : k));
}
