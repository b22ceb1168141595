// Every page of docs/ has a Chinese twin under docs/zh-CN/ with the same file name, and the two stay
// parallel: the same generated blocks with the same figures, the same headings (level by level), the
// same outline (headings, generated blocks, figures and tables, in order) and the same links (by
// target, each normalised to the English page and the heading it points at). README.md and
// README.zh-CN.md are held to the same. Pure: reads the pages, starts no server.
//
// A section added to an English page goes into its twin at the same place: a heading of the same
// level, the same links (to the twin of a page, `../` before images and runs, an anchor naming the
// twin's heading at the same place), and the same generated blocks, empty between their markers
// until `npm run docs` fills both.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { blockNames } from '../../docgen/blocks.js';
import { README_ZH, ZH_DOCS } from '../../docgen/docs.js';
import { PHRASES } from '../../docgen/zh-faults.js';
import { BENCH_WORDS } from '../../report/bench/words.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const pages = (dir: string) =>
  fs
    .readdirSync(path.join(ROOT, dir))
    .filter((f) => f.endsWith('.md'))
    .sort();

const ENGLISH = pages('docs');
const CHINESE = fs.existsSync(path.join(ROOT, ZH_DOCS)) ? pages(ZH_DOCS) : [];

/** The English page a doc is the twin of (itself, for an English page). */
function englishOf(file: string): string {
  if (file === README_ZH) return 'README.md';
  return file.startsWith(`${ZH_DOCS}/`) ? `docs/${path.basename(file)}` : file;
}

/** The text outside fenced code blocks, line by line (a `#` in a shell block is no heading). */
function prose(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').filter((line) => {
    const open = /^\s*(```|~~~)/.exec(line)?.[1];
    if (open && (fence === undefined || fence === open)) {
      fence = fence === undefined ? open : undefined;
      return false;
    }
    return fence === undefined;
  });
}

interface Heading {
  level: number;
  slug: string;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headings(text: string): Heading[] {
  const seen = new Map<string, number>();
  return prose(text).flatMap((line) => {
    const m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) return [];
    const plain = (m[2] as string).replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return [{ level: (m[1] as string).length, slug: n === 0 ? base : `${base}-${n}` }];
  });
}

/** Every link target of a page: markdown links and images, and the src/href of inline HTML; not in code. */
function linkTargets(text: string): string[] {
  const lines = prose(text).map((l) => l.replace(/`[^`\n]*`/g, ''));
  return lines.flatMap((l) => [
    ...[...l.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] as string),
    ...[...l.matchAll(/<(?:img|a)\b[^>]*?\s(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string),
  ]);
}

const headingCache = new Map<string, Heading[]>();
const headingsOf = (file: string) => {
  if (!headingCache.has(file)) headingCache.set(file, fs.existsSync(path.join(ROOT, file)) ? headings(read(file)) : []);
  return headingCache.get(file) ?? [];
};

/**
 * Where a link of `from` goes, the same for both twins: the English page it stands for (a Chinese
 * page's link to a Chinese page is read as its English twin), and the heading it points at by its
 * place in the page (the anchors differ between the languages, the headings' order does not). An
 * anchor that names no heading stays as `#?anchor`, so it matches nothing.
 */
function normalise(from: string, target: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return target;
  // a screenshot of the live page is the same figure in either language (img/live-zh-* shoots img/live-en-*'s page in Chinese)
  const [file = '', anchor] = target.replace(/(^|\/)img\/live-zh-/, '$1img/live-en-').split('#');
  const resolved = file === '' ? from : path.relative(ROOT, path.resolve(ROOT, path.dirname(from), decodeURIComponent(file)));
  if (anchor === undefined) return englishOf(resolved);
  const at = headingsOf(resolved).findIndex((h) => h.slug === decodeURIComponent(anchor).toLowerCase());
  return `${englishOf(resolved)}#${at < 0 ? `?${anchor}` : `heading ${at + 1}`}`;
}

/** The items of `a` that `b` lacks, counting repeats. */
function missing(a: readonly string[], b: readonly string[]): string[] {
  const left = [...b];
  return a.filter((x) => {
    const i = left.indexOf(x);
    if (i < 0) return true;
    left.splice(i, 1);
    return false;
  });
}

const BLOCK = /<!-- generated:([a-z-]+) -->\n([\s\S]*?)<!-- \/generated:\1 -->/g;
const blocks = (text: string) => new Map([...text.matchAll(BLOCK)].map((m) => [m[1] as string, m[2] as string]));

/** Words with a digit in them, which are no figure: the topologies' labels ("1 instance" is 单实例). */
const LABELS = Object.values(BENCH_WORDS)
  .flatMap((w) => Object.values(w.topology))
  .sort((a, b) => b.length - a.length);

/**
 * A block's figures: each table row's numbers (sorted, as a sentence may order them otherwise), then
 * the rest's. A table's header is words, not figures: it is left out, and so are the labels above.
 */
function figures(body: string): string[] {
  const numbers = (s: string) => (LABELS.reduce((t, l) => t.split(l).join(' '), s).match(/\d+(?:\.\d+)?/g) ?? []).sort().join(' ');
  const lines = body.split('\n');
  const separator = (l: string | undefined) => l !== undefined && /^\|(\s*:?-+:?\s*\|)+\s*$/.test(l);
  const rows = lines.filter((l, i) => l.startsWith('|') && !separator(l) && !separator(lines[i + 1])).map((l, i) => `row ${i + 1}: ${numbers(l)}`);
  return [...rows, `text: ${numbers(lines.filter((l) => !l.startsWith('|')).join('\n'))}`];
}

/** The figures of every generated block the two texts share, where they differ. */
function figureDiffs(en: string, zh: string): { block: string; en: string[]; zh: string[] }[] {
  const zhBlocks = blocks(zh);
  return [...blocks(en)].flatMap(([name, body]) => {
    const other = zhBlocks.get(name);
    if (other === undefined) return [];
    const [a, b] = [figures(body), figures(other)];
    return missing(a, b).length + missing(b, a).length === 0 ? [] : [{ block: name, en: missing(a, b), zh: missing(b, a) }];
  });
}

/**
 * A page's outline, in order: its headings (by level), generated blocks (by name), figures (by what
 * they show, normalised as links are) and tables outside the generated blocks (a table's columns may
 * differ: docs/glossary.md gives the meaning in both languages, its twin in Chinese). Twins are translated, not copied: their paragraphs may differ, their outlines may not.
 */
function outline(file: string, text: string): string[] {
  const out: string[] = [];
  let inBlock: string | undefined;
  const lines = prose(text);
  lines.forEach((line, i) => {
    const open = /^<!-- generated:([a-z-]+) -->$/.exec(line)?.[1];
    if (open) {
      out.push(`block ${open}`);
      inBlock = open;
      return;
    }
    if (inBlock !== undefined) {
      if (line === `<!-- /generated:${inBlock} -->`) inBlock = undefined;
      return;
    }
    const heading = /^(#{1,6})\s/.exec(line)?.[1];
    if (heading) out.push(heading);
    const bare = line.replace(/`[^`\n]*`/g, '');
    for (const m of bare.matchAll(/!\[[^\]]*\]\(([^)\s]+)[^)]*\)|<img\b[^>]*?\ssrc="([^"]+)"/g))
      out.push(`figure ${normalise(file, (m[1] ?? m[2]) as string)}`);
    if (/^\|(\s*:?-+:?\s*\|)+\s*$/.test(line) && lines[i - 1]?.startsWith('|')) out.push('table');
  });
  return out;
}

describe('the Chinese twins of docs/', () => {
  it('are one per English page, with the same file name', () => {
    expect(ENGLISH.length).toBeGreaterThan(10);
    expect(ENGLISH.filter((p) => !CHINESE.includes(p)).map((p) => `docs/${p} has no twin ${ZH_DOCS}/${p}`)).toEqual([]);
    expect(CHINESE.filter((p) => !ENGLISH.includes(p)).map((p) => `${ZH_DOCS}/${p} twins no page of docs/`)).toEqual([]);
  });

  describe.each(ENGLISH)('docs/%s and its twin', (page) => {
    const en = `docs/${page}`;
    const zh = `${ZH_DOCS}/${page}`;
    const both = () => {
      expect(fs.existsSync(path.join(ROOT, zh)), `${zh} is missing`).toBe(true);
      return [read(en), read(zh)] as const;
    };

    it('hold the same generated blocks, with the same figures', () => {
      const [a, b] = both();
      expect(blockNames(b), zh).toEqual(blockNames(a));
      expect(figureDiffs(a, b)).toEqual([]);
    });

    it('have the same headings, level by level', () => {
      both();
      const levels = (file: string) =>
        headingsOf(file)
          .map((h) => '#'.repeat(h.level))
          .join(' ');
      expect(levels(zh), `${zh} against ${en}`).toEqual(levels(en));
    });

    it('have the same outline: headings, generated blocks, figures and tables, in the same order', () => {
      const [a, b] = both();
      expect(outline(zh, b)).toEqual(outline(en, a));
    });

    it('link to the same targets (pages, headings, images, runs, sites)', () => {
      const [a, b] = both();
      const [toEn, toZh] = [linkTargets(a).map((t) => normalise(en, t)), linkTargets(b).map((t) => normalise(zh, t))];
      expect({ onlyInEnglish: missing(toEn, toZh), onlyInChinese: missing(toZh, toEn) }).toEqual({ onlyInEnglish: [], onlyInChinese: [] });
    });

    it('point only at headings that exist', () => {
      const [a, b] = both();
      const broken = [...linkTargets(a).map((t) => [en, t] as const), ...linkTargets(b).map((t) => [zh, t] as const)]
        .filter(([from, t]) => normalise(from, t).includes('#?'))
        .map(([from, t]) => `${from} → ${t}`);
      expect(broken).toEqual([]);
    });

    it('link, each, to pages in its own language', () => {
      const [a, b] = both();
      const pageLinks = (file: string, text: string) =>
        linkTargets(text)
          .filter((t) => !/^[a-z][a-z0-9+.-]*:|^#/i.test(t) && t.split('#')[0]?.endsWith('.md'))
          .map((t) => path.relative(ROOT, path.resolve(ROOT, path.dirname(file), t.split('#')[0] as string)));
      const chinese = (f: string) => f === README_ZH || f.startsWith(`${ZH_DOCS}/`);
      expect(
        pageLinks(en, a)
          .filter(chinese)
          .map((f) => `${en} → ${f}`),
      ).toEqual([]);
      expect(
        pageLinks(zh, b)
          .filter((f) => !chinese(f))
          .map((f) => `${zh} → ${f}`),
      ).toEqual([]);
    });
  });

  it('are linked from README.zh-CN.md wherever it links a page of docs/', () => {
    const english = linkTargets(read(README_ZH)).filter((t) => /^docs\/[^/]+\.md(#|$)/.test(t));
    expect(english).toEqual([]);
  });

  it('keep every figure in the phrases that put the fault tables in Chinese', () => {
    const bad = PHRASES.filter(([en, zh]) => {
      const n = en.split('#').length - 1;
      const used = [...zh.matchAll(/\{(\d+)\}/g)].map((m) => Number(m[1])).sort((x, y) => x - y);
      return used.join() !== Array.from({ length: n }, (_, i) => i).join();
    });
    expect(bad).toEqual([]);
  });
});

describe('README.md and README.zh-CN.md', () => {
  const [en, zh] = ['README.md', README_ZH];

  it('hold the same generated blocks, in the same order, with the same figures', () => {
    expect(blockNames(read(zh)), zh).toEqual(blockNames(read(en)));
    expect(figureDiffs(read(en), read(zh))).toEqual([]);
  });

  it('have the same headings, level by level', () => {
    const levels = (file: string) =>
      headingsOf(file)
        .map((h) => '#'.repeat(h.level))
        .join(' ');
    expect(levels(zh), `${zh} against ${en}`).toEqual(levels(en));
  });

  it('have the same outline: headings, generated blocks, figures and tables, in the same order', () => {
    expect(outline(zh, read(zh))).toEqual(outline(en, read(en)));
  });

  it('link to the same targets (pages, headings, images, runs, sites)', () => {
    const [toEn, toZh] = [linkTargets(read(en)).map((t) => normalise(en, t)), linkTargets(read(zh)).map((t) => normalise(zh, t))];
    expect({ onlyInEnglish: missing(toEn, toZh), onlyInChinese: missing(toZh, toEn) }).toEqual({ onlyInEnglish: [], onlyInChinese: [] });
  });

  it('point only at headings that exist', () => {
    const broken = [...linkTargets(read(en)).map((t) => [en, t] as const), ...linkTargets(read(zh)).map((t) => [zh, t] as const)]
      .filter(([from, t]) => normalise(from, t).includes('#?'))
      .map(([from, t]) => `${from} → ${t}`);
    expect(broken).toEqual([]);
  });
});

describe('the parity checks themselves', () => {
  it('find a block, a figure or a table that is missing or out of place in an outline', () => {
    const en =
      '# A\n\n![chart](results.svg)\n\n<!-- generated:summary -->\n| a | b |\n| --- | --- |\n| 1 | 2 |\n<!-- /generated:summary -->\n\n## B\n\n| x | y | z |\n|---|---|---|\n| 1 | 2 | 3 |\n';
    const zh = '# 甲\n\n<!-- generated:summary -->\n<!-- /generated:summary -->\n\n![图](results.svg)\n\n## 乙\n';
    expect(outline('docs/x.md', en)).toEqual(['#', 'figure docs/results.svg', 'block summary', '##', 'table']);
    expect(outline(`${ZH_DOCS}/x.md`, zh)).toEqual(['#', 'block summary', 'figure docs/results.svg', '##']);
  });

  it('find a figure that differs, a heading that is missing and a link with no counterpart', () => {
    const en =
      '# A\n\n## B\n\n<!-- generated:results -->\n| 1 instance | y |\n| --- | --- |\n| 12 | 3.5 |\n<!-- /generated:results -->\n\nSee [b](#b) and [c](cluster.md).\n';
    const zh = '# 甲\n\n<!-- generated:results -->\n| 单实例 | y |\n| --- | --- |\n| 12 | 3.6 |\n<!-- /generated:results -->\n\n见 [乙](#乙)。\n';
    expect(figureDiffs(en, zh)).toEqual([{ block: 'results', en: ['row 1: 12 3.5'], zh: ['row 1: 12 3.6'] }]);
    expect(headings(zh).length).toBeLessThan(headings(en).length);
    expect(linkTargets(en)).toEqual(['#b', 'cluster.md']);
    expect(normalise(`${ZH_DOCS}/faults.md`, '../../README.zh-CN.md')).toBe('README.md');
    expect(normalise(`${ZH_DOCS}/faults.md`, 'results.md')).toBe('docs/results.md');
    expect(normalise('docs/faults.md', 'img/live-en-390.png')).toBe(normalise(`${ZH_DOCS}/faults.md`, '../img/live-en-390.png'));
  });

  it('read code blocks as code: no heading, no link', () => {
    const text = '# A\n\n```sh\n# a comment\nsee [x](y.md)\n```\n\n## B `code`: §2.9\n\n## 业务时间 > 租期\n';
    expect(headings(text).map((h) => h.slug)).toEqual(['a', 'b-code-29', '业务时间--租期']);
    expect(linkTargets(text)).toEqual([]);
  });
});
