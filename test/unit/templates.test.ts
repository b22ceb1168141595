// Data directory templates (src/cluster/templates.ts): made once, copied whole with owners and
// modes, never seen half made when two clusters make one at once.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { copyTemplate } from '../../src/cluster/templates.js';
import { removeTree } from '../../src/paths.js';

const made: string[] = [];
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-templates-'));

afterEach(() => {
  for (const dir of made.splice(0)) removeTree(dir);
});
afterAll(() => removeTree(scratch));

/** A maker that writes a small data directory, counting its calls and taking a while, as an install does. */
function maker() {
  const calls = { n: 0 };
  const make = async (dir: string) => {
    calls.n++;
    fs.mkdirSync(path.join(dir, 'sub'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(dir, 'sub', 'file'), 'data', { mode: 0o600 });
    await new Promise((r) => setTimeout(r, 50));
  };
  return { calls, make };
}

describe('copyTemplate', () => {
  it('makes the template once and copies it for each target, modes kept', async () => {
    const name = `unit-${crypto.randomBytes(4).toString('hex')}`;
    const identity = { binaries: [process.execPath], settings: ['a'] };
    const { calls, make } = maker();
    const first = await copyTemplate(name, path.join(scratch, 'one'), identity, make);
    made.push(first);
    const second = await copyTemplate(name, path.join(scratch, 'two'), identity, make);
    expect(second).toBe(first);
    expect(calls.n).toBe(1);
    for (const target of ['one', 'two']) {
      expect(fs.readFileSync(path.join(scratch, target, 'sub', 'file'), 'utf8')).toBe('data');
      expect(fs.statSync(path.join(scratch, target, 'sub')).mode & 0o777).toBe(0o700);
      expect(fs.statSync(path.join(scratch, target, 'sub', 'file')).mode & 0o777).toBe(0o600);
    }
  });

  it('another setting is another template', async () => {
    const name = `unit-${crypto.randomBytes(4).toString('hex')}`;
    const { calls, make } = maker();
    const a = await copyTemplate(name, path.join(scratch, 'a'), { binaries: [process.execPath], settings: ['a'] }, make);
    const b = await copyTemplate(name, path.join(scratch, 'b'), { binaries: [process.execPath], settings: ['b'] }, make);
    made.push(a, b);
    expect(b).not.toBe(a);
    expect(calls.n).toBe(2);
  });

  it('two makers at once: both targets whole, one template left, no half-made one behind', async () => {
    const name = `unit-${crypto.randomBytes(4).toString('hex')}`;
    const identity = { binaries: [process.execPath], settings: ['a'] };
    const { calls, make } = maker();
    const [x, y] = await Promise.all([
      copyTemplate(name, path.join(scratch, 'x'), identity, make),
      copyTemplate(name, path.join(scratch, 'y'), identity, make),
    ]);
    made.push(x);
    expect(y).toBe(x);
    expect(calls.n).toBe(2);
    for (const target of ['x', 'y']) expect(fs.readFileSync(path.join(scratch, target, 'sub', 'file'), 'utf8')).toBe('data');
    expect(fs.readdirSync(path.dirname(x)).filter((f) => f.startsWith(name))).toEqual([path.basename(x)]);
  });
});
