// Where the repository is, wherever a command is run from.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the folder above src/, which holds this file. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
