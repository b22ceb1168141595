import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeFingerprint } from '../../src/cluster/fingerprint.js';

describe('code fingerprint (cluster up restarts a cluster started from older code)', () => {
  it('changes when service code changes, and only then', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-fp-'));
    try {
      fs.mkdirSync(path.join(root, 'src', 'stock'), { recursive: true });
      fs.mkdirSync(path.join(root, 'bench'));
      fs.writeFileSync(path.join(root, 'src', 'stock', 'a.ts'), 'export const a = 1;\n');
      const first = codeFingerprint(root);
      expect(codeFingerprint(root)).toBe(first);

      fs.writeFileSync(path.join(root, 'bench', 'b.ts'), 'not run by the instances\n');
      expect(codeFingerprint(root)).toBe(first);

      fs.writeFileSync(path.join(root, 'src', 'stock', 'a.ts'), 'export const a = 2;\n');
      expect(codeFingerprint(root)).not.toBe(first);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
