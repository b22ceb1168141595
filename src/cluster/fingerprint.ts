// A hash of the code the instances run, so `up` can tell a running cluster started from older code.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../paths.js';

const CODE_DIRS = ['src', 'lua', 'migrations'];
const CODE_FILES = ['package-lock.json'];

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

export function codeFingerprint(root: string = REPO_ROOT): string {
  const files = [...CODE_DIRS.flatMap((d) => filesUnder(path.join(root, d))), ...CODE_FILES.map((f) => path.join(root, f))]
    .filter((f) => fs.existsSync(f))
    .sort();
  const hash = createHash('sha256');
  for (const f of files) hash.update(path.relative(root, f)).update('\0').update(fs.readFileSync(f)).update('\0');
  return hash.digest('hex').slice(0, 16);
}
