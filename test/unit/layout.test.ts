// docs/layout.md (and its twin) describe the tree as it is: every top-level folder of the repository
// and every folder of src/ has a row, its path in the first column (`name/…`). Folders git ignores
// (node_modules/, reports/, …) and .git are not the tree. Pure: reads the pages and the folders.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ZH_DOCS } from '../../docgen/docs.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The top-level names .gitignore ignores (`name/` or `name` on a line of its own, no slash inside). */
function ignored(): Set<string> {
  const file = path.join(ROOT, '.gitignore');
  const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n') : [];
  return new Set(
    lines.map((l) => l.trim().replace(/^\//, '').replace(/\/$/, '')).filter((l) => l !== '' && !l.startsWith('#') && !l.includes('/') && !l.includes('*')),
  );
}

/** The folders of `dir` (relative to the repository), as `dir/name/`, or `name/` at the top. */
function folders(dir: string): string[] {
  const skip = new Set(['.git', ...ignored()]);
  return fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !skip.has(e.name))
    .map((e) => (dir === '.' ? `${e.name}/` : `${dir}/${e.name}/`))
    .sort();
}

/** The paths a layout page's rows name in their first column, each in backticks. */
function layoutPaths(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .flatMap((l) => [...(l.split(' | ')[0] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] as string));
}

/** The folders no row covers: a row names the folder itself or a path inside it. */
function unlisted(wanted: readonly string[], paths: readonly string[]): string[] {
  return wanted.filter((f) => !paths.some((p) => p === f || p.startsWith(f)));
}

describe.each(['docs/layout.md', `${ZH_DOCS}/layout.md`])('%s', (page) => {
  const paths = layoutPaths(fs.readFileSync(path.join(ROOT, page), 'utf8'));

  it('has a row for every top-level folder', () => {
    expect(unlisted(folders('.'), paths)).toEqual([]);
  });

  it('has a row for every folder of src/', () => {
    expect(unlisted(folders('src'), paths)).toEqual([]);
  });
});

describe('the layout check itself', () => {
  it('finds a folder no row names, and takes a path inside a folder as naming it', () => {
    const page = '| path | what |\n| --- | --- |\n| `src/main.ts`, `src/net/` | x |\n| `.ci/run`, `.ci/node-line` | CI |\n';
    expect(layoutPaths(page)).toEqual(['src/main.ts', 'src/net/', '.ci/run', '.ci/node-line']);
    expect(unlisted(['.ci/', 'live/', 'src/net/', 'src/compose/'], layoutPaths(page))).toEqual(['live/', 'src/compose/']);
  });
});
