// Where the repository is, wherever a command is run from, and how a folder of ours is removed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository root: the nearest folder above this file that holds package.json. Found by looking,
 * not by depth, so it is the same from src/paths.ts and from the service's bundle (src/bundle.ts).
 */
export const REPO_ROOT = rootAbove(path.dirname(fileURLToPath(import.meta.url)));

/** What stocklab makes once and reuses, kept with the packages: bundles (src/bundle.ts), data directory templates (src/cluster/templates.ts). */
export const CACHE_DIR = path.join(REPO_ROOT, 'node_modules', '.cache', 'stocklab');

function rootAbove(dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'package.json')) && !d.split(path.sep).includes('node_modules')) return d;
    if (path.dirname(d) === d) throw new Error(`no package.json above ${dir}`);
  }
}

/**
 * Removes a folder and everything in it. Retried: a process that has just exited (a server's last
 * log line, chromium's crash reporter) can still add a file while the tree goes, and a single
 * recursive removal then fails with ENOTEMPTY.
 */
export function removeTree(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}
