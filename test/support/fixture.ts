// A fixture for a test file: started in beforeAll in a fresh temp dir, stopped in afterAll, and the
// dir removed. Read `.current` inside tests and hooks.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { removeTree } from '../../src/paths.js';

export function withFixture<T>(what: string, start: (dir: string) => Promise<T>, stop: (value: T) => Promise<unknown>): { readonly current: T } {
  let value: T | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `stocklab-${what}-`));
    value = await start(dir);
  });
  afterAll(async () => {
    if (value !== undefined) await stop(value);
    value = undefined;
    if (dir) removeTree(dir);
  });
  return {
    get current(): T {
      if (value === undefined) throw new Error(`${what}: only available inside tests and hooks`);
      return value;
    },
  };
}
