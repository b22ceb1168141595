// A fresh data directory (mariadb-install-db's, initdb's) is the same for every cluster with the
// same binaries and settings, and making one took about 1.5 s of every private cluster's boot
// (issue 47). So it is made once, as a template in node_modules/.cache/stocklab/templates/, and
// copied for each cluster in about 0.2 s: cp -a keeps owners and modes (PostgreSQL's files are its
// user's, 0700), and --sparse=always keeps InnoDB's preallocated 100 MB redo log to the few MB it holds.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { CACHE_DIR, removeTree } from '../paths.js';

const run = promisify(execFile);
const TEMPLATES = path.join(CACHE_DIR, 'templates');

/** What a template depends on: the binaries that make and run it, and the settings it was made with. */
export interface TemplateIdentity {
  binaries: readonly string[];
  settings: readonly string[];
}

/** Each binary by path, size and mtime (an upgraded package is another template), then the settings. */
function keyOf(identity: TemplateIdentity): string {
  const h = crypto.createHash('sha256');
  for (const b of identity.binaries) {
    const st = fs.statSync(b);
    h.update(`${b}\0${st.size}\0${st.mtimeMs}\0`);
  }
  for (const s of identity.settings) h.update(`${s}\0`);
  return h.digest('hex').slice(0, 16);
}

/**
 * Makes `target` (which must not exist yet) a copy of the template `name`, first making the template
 * with `make(dir)` (which creates the fresh data directory at `dir`) when there is none. Returns the
 * template's path, for the server's log.
 */
export async function copyTemplate(name: string, target: string, identity: TemplateIdentity, make: (dir: string) => Promise<void>): Promise<string> {
  const template = path.join(TEMPLATES, `${name}-${keyOf(identity)}`);
  if (!fs.existsSync(template)) {
    fs.mkdirSync(TEMPLATES, { recursive: true });
    const tmp = `${template}.${process.pid}-${crypto.randomBytes(4).toString('hex')}.tmp`;
    try {
      await make(tmp);
      // Renamed whole, so no one copies a half-made template; when two made one at once, the first stays.
      try {
        fs.renameSync(tmp, template);
      } catch (err) {
        if (!fs.existsSync(template)) throw err;
      }
    } finally {
      removeTree(tmp);
    }
  }
  await run('cp', ['-a', '--sparse=always', template, target]);
  return template;
}
