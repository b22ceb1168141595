// docs/strategies.md's "Where each strategy is declared" (and its twin's 每个方案的源文件) gives each
// strategy's file and its lock's: every strategy src/strategies/ declares has a row, each row's
// declaring file declares it (a `+line` row: its per-request row, in a file that makes lined rows),
// and every file a row names exists. Pure: reads the pages and the sources.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ZH_DOCS } from '../../docgen/docs.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const STRATEGIES = 'src/strategies';

/** The names src/strategies/ declares (`name: '…'`), and the `+line` rows of those files that make them. */
function declared(): Map<string, string> {
  const names = new Map<string, string>();
  for (const f of fs.readdirSync(path.join(ROOT, STRATEGIES)).filter((f) => f.endsWith('.ts'))) {
    for (const m of read(`${STRATEGIES}/${f}`).matchAll(/\bname: '([a-z0-9-]+)'/g)) names.set(m[1] as string, `${STRATEGIES}/${f}`);
  }
  return names;
}

interface Row {
  name: string;
  file: string;
  paths: string[];
}

/** The rows of the table under `heading`: the strategy, its declaring file, and every path the row names. */
function rows(page: string, heading: string): Row[] {
  const lines = read(page).split('\n');
  const start = lines.indexOf(heading);
  const out: Row[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('## ')) break;
    const cells = line.split(' | ');
    const name = /^\| `([a-z0-9+-]+)`$/.exec(cells[0] ?? '')?.[1];
    if (!name) continue;
    const paths = [...line.matchAll(/`((?:src|lua)\/[^`]+)`/g)].map((m) => m[1] as string);
    out.push({ name, file: /`([^`]+)`/.exec(cells[1] ?? '')?.[1] ?? '', paths });
  }
  return out;
}

const PAGES = [
  ['docs/strategies.md', '## Where each strategy is declared'],
  [`${ZH_DOCS}/strategies.md`, '## 每个方案的源文件'],
] as const;

describe.each(PAGES)('%s', (page, heading) => {
  const table = rows(page, heading);
  const names = declared();

  it('has a row for every strategy src/strategies/ declares, and its lined form', () => {
    expect(names.size).toBeGreaterThan(30);
    const listed = new Set(table.map((r) => r.name));
    expect([...names.keys()].filter((n) => !listed.has(n))).toEqual([]);
  });

  it("gives each row's declaring file, which declares it", () => {
    const wrong = table.filter((r) => {
      const base = r.name.replace(/\+line$/, '');
      if (names.get(base) !== r.file) return true;
      return r.name !== base && !read(r.file).includes('withLinedRow');
    });
    expect(wrong.map((r) => `${r.name}: ${r.file}`)).toEqual([]);
  });

  it('names only files that exist', () => {
    const gone = table.flatMap((r) => r.paths).filter((p) => !fs.existsSync(path.join(ROOT, p)));
    expect(gone).toEqual([]);
  });
});

it('the two languages list the same strategies, files and locks', () => {
  const [en, zh] = PAGES.map(([page, heading]) => rows(page, heading));
  expect(zh).toEqual(en);
});
