// Where the repository is, wherever a command is run from, and how a folder of ours is removed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the folder above src/, which holds this file. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Removes a folder and everything in it. Retried: a process that has just exited (a server's last
 * log line, chromium's crash reporter) can still add a file while the tree goes, and a single
 * recursive removal then fails with ENOTEMPTY.
 */
export function removeTree(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}
