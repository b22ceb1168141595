// One term per idea in Chinese: docs/zh-CN/glossary.md's table "一个概念一个词" names, for each idea,
// the term the Chinese pages use and the other names they do not; this test reads that table and
// flags any other name in docs/zh-CN/ and README.zh-CN.md (the glossary itself excepted, as it lists
// them). Pure: reads the pages.
//
// The generated blocks say what code says (bench/*words*.ts, docgen/zh-faults.ts, …): an other
// name inside one is a fix for that code, then `npm run docs`. Until then it is listed in
// FROM_CODE with where it comes from; any other is flagged like prose.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { README_ZH, ZH_DOCS } from '../../docgen/docs.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const GLOSSARY_ZH = `${ZH_DOCS}/glossary.md`;
const GLOSSARY_EN = 'docs/glossary.md';

/** The rows of the table under a heading: cells, without the header and separator. */
function tableUnder(text: string, heading: string): string[][] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === heading);
  if (start < 0) return [];
  const table: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,6}\s/.test(line)) break;
    if (line.startsWith('|')) table.push(line);
    else if (table.length > 0) break;
  }
  return table.slice(2).map((l) =>
    l
      .replace(/^\||\|\s*$/g, '')
      .split('|')
      .map((c) => c.trim()),
  );
}

/** Each idea's term and the other names not to use, from a glossary's table. */
function termsOf(rows: string[][], termAt: number, othersAt: number): { term: string; others: string[] }[] {
  return rows.map((cells) => ({
    term: (cells[termAt] ?? '').replace(/`/g, ''),
    others: (cells[othersAt] ?? '')
      .split(/[、,，]/)
      .map((s) => s.replace(/`/g, '').trim())
      .filter((s) => s !== ''),
  }));
}

const TERMS = termsOf(tableUnder(read(GLOSSARY_ZH), '## 一个概念一个词'), 1, 2);

/** Other names that code puts into generated blocks, awaiting a fix there: name → the code that says it. */
const FROM_CODE: Record<string, string> = {};

const GENERATED = /<!-- generated:([a-z-]+) -->\n[\s\S]*?<!-- \/generated:\1 -->/g;

/** Where a text says one of the other names: `file:line name`, in prose or (marked) in a generated block. */
function otherNames(file: string, text: string, names: readonly string[]): { at: string; name: string; generated: boolean }[] {
  const blocks = [...text.matchAll(GENERATED)].map((m) => [m.index, m.index + m[0].length] as const);
  return names.flatMap((name) =>
    [...text.matchAll(new RegExp(name, 'g'))].map((m) => {
      const line = text.slice(0, m.index).split('\n').length;
      return { at: `${file}:${line}`, name, generated: blocks.some(([s, e]) => m.index >= s && m.index < e) };
    }),
  );
}

const chinese = () =>
  [
    README_ZH,
    ...fs
      .readdirSync(path.join(ROOT, ZH_DOCS))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `${ZH_DOCS}/${f}`),
  ].filter((f) => f !== GLOSSARY_ZH);

describe('one term per idea in Chinese', () => {
  it('has its table in both glossaries, naming the same terms and other names', () => {
    expect(TERMS.length).toBeGreaterThanOrEqual(5);
    expect(TERMS.find((t) => t.term === '防护令牌')?.others).toEqual(['栅栏令牌', '隔离令牌']);
    expect(termsOf(tableUnder(read(GLOSSARY_EN), '## One term per idea'), 1, 2)).toEqual(TERMS);
  });

  it('uses no other name in the prose of docs/zh-CN/ and README.zh-CN.md', () => {
    const names = TERMS.flatMap((t) => t.others);
    const found = chinese()
      .flatMap((f) => otherNames(f, read(f), names))
      .filter((o) => !o.generated)
      .map((o) => `${o.at} ${o.name}`);
    expect(found).toEqual([]);
  });

  it('uses none in the generated blocks either, but those code still says (FROM_CODE)', () => {
    const names = TERMS.flatMap((t) => t.others);
    const found = chinese()
      .flatMap((f) => otherNames(f, read(f), names))
      .filter((o) => o.generated && !(o.name in FROM_CODE))
      .map((o) => `${o.at} ${o.name}`);
    expect(found).toEqual([]);
  });

  it('finds an other name in prose and tells a generated block from prose', () => {
    const text = '持锁者拿着锁。\n\n<!-- generated:x -->\n| 由持有者自己释放 |\n<!-- /generated:x -->\n\n持有者又来了。\n';
    expect(otherNames('a.md', text, ['持有者'])).toEqual([
      { at: 'a.md:4', name: '持有者', generated: true },
      { at: 'a.md:7', name: '持有者', generated: false },
    ]);
  });
});
