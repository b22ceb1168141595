// The project's modules import one another one way: src/ (the service, its servers and clients)
// imports none of the tools built on it, and no two files import each other (a cycle makes the
// order in which modules load decide what a value is when it is read).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOTS = ['src', 'report', 'bench', 'faults', 'docgen', 'live', 'compose', 'mutation'];
/** The service and its servers: what the tools (bench, faults, live, compose) and their report kit build on, never the other way. */
const TOOLS = ['report/', 'bench/', 'faults/', 'docgen/', 'live/', 'compose/', 'mutation/'];
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^;'"]*?\bfrom\s+'(\.[^']+)'/g;

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** Each file's relative imports, as the .ts files they name. */
function importGraph(files: readonly string[], read: (file: string) => string): Map<string, Set<string>> {
  return new Map(
    files.map((f) => [
      f,
      new Set([...read(f).matchAll(IMPORT)].map((m) => path.normalize(path.join(path.dirname(f), m[1] as string)).replace(/\.js$/, '.ts'))),
    ]),
  );
}

function twoFileCycles(graph: Map<string, Set<string>>): string[] {
  return [...graph].flatMap(([a, deps]) => [...deps].filter((b) => a < b && graph.get(b)?.has(a)).map((b) => `${a} ↔ ${b}`));
}

describe('imports', () => {
  it('finds a two-file cycle where there is one (the check can fail)', () => {
    const files: Record<string, string> = {
      'x/a.ts': "import type { B } from './b.js';",
      'x/b.ts': "import { a } from './a.js';\nexport type B = 1;",
      'x/c.ts': "import { a } from './a.js';",
    };
    expect(twoFileCycles(importGraph(Object.keys(files), (f) => files[f] as string))).toEqual(['x/a.ts ↔ x/b.ts']);
  });

  const root = path.resolve(import.meta.dirname, '../..');
  const files = ROOTS.flatMap((r) => sourceFiles(path.join(root, r))).map((f) => path.relative(root, f));
  const graph = importGraph(files, (f) => fs.readFileSync(path.join(root, f), 'utf8'));

  it('has no two files that import each other', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(twoFileCycles(graph)).toEqual([]);
  });

  it('keeps src/ free of the tools built on it (bench, faults, live, compose) and of the report kit', () => {
    const backwards = [...graph].flatMap(([f, deps]) =>
      f.startsWith('src/') ? [...deps].filter((d) => TOOLS.some((t) => d.startsWith(t))).map((d) => `${f} → ${d}`) : [],
    );
    expect(backwards).toEqual([]);
  });

  it('keeps the bench free of the fault lab, and both free of the docs generator that reads them', () => {
    const upward = (from: string, to: readonly string[]) =>
      [...graph].flatMap(([f, deps]) => (f.startsWith(from) ? [...deps].filter((d) => to.some((t) => d.startsWith(t))).map((d) => `${f} → ${d}`) : []));
    expect(upward('bench/', ['faults/', 'docgen/'])).toEqual([]);
    expect(upward('faults/', ['docgen/'])).toEqual([]);
  });

  it('keeps the bench a tool no other folder imports, and the report kit free of every tool that uses it', () => {
    const intoBench = [...graph].flatMap(([f, deps]) =>
      f.startsWith('bench/') ? [] : [...deps].filter((d) => d.startsWith('bench/')).map((d) => `${f} → ${d}`),
    );
    expect(intoBench).toEqual([]);
    const fromReport = [...graph].flatMap(([f, deps]) =>
      f.startsWith('report/') ? [...deps].filter((d) => TOOLS.some((t) => t !== 'report/' && d.startsWith(t))).map((d) => `${f} → ${d}`) : [],
    );
    expect(fromReport).toEqual([]);
  });

  it('keeps the locks and the strategies free of the HTTP layer that serves them', () => {
    const upward = [...graph].flatMap(([f, deps]) =>
      f.startsWith('src/locks/') || f.startsWith('src/strategies/') ? [...deps].filter((d) => d.startsWith('src/http/')).map((d) => `${f} → ${d}`) : [],
    );
    expect(upward).toEqual([]);
  });
});
