// The committed deploy/kubernetes/ is `npm run kubernetes -- render`'s output, file for file: a
// change to the native cluster's settings, the service's variables or the fault lab's lists shows
// here until the manifests are rendered again. Pure: renders in memory, writes nothing.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEPLOY_DIR, renderFiles } from '../../faults/kubernetes/render.js';
import { toYaml } from '../../src/kubernetes/yaml.js';

function committed(): string[] {
  return (fs.readdirSync(DEPLOY_DIR, { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => f.endsWith('.yaml')).sort();
}

describe('deploy/kubernetes/', () => {
  const fresh = renderFiles();

  it('holds exactly the files a render writes', () => {
    expect(committed()).toEqual([...fresh.keys()].sort());
  });

  it.each([...fresh.keys()].sort())('%s is as rendered (npm run kubernetes -- render)', (file) => {
    expect(fs.readFileSync(path.join(DEPLOY_DIR, file), 'utf8')).toBe(fresh.get(file));
  });
});

describe('the YAML writer', () => {
  it('writes maps, lists, quoted strings and literal blocks', () => {
    expect(toYaml([{ a: 'x: y', b: [1, { c: true }], d: 'one\ntwo\n', e: [], f: {}, g: undefined }])).toBe(
      'a: "x: y"\nb:\n- 1\n- c: true\nd: |\n  one\n  two\ne: []\nf: {}\n',
    );
  });
});
