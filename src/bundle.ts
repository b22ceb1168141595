// The processes stocklab starts by the dozen run ESM bundles made by esbuild (tsx's own dependency,
// the same transform tsx applies file by file), with the packages left to node_modules: the
// service's instances (src/main.ts), the load generator's process (src/load/load-process.ts) and the
// links' forwarders (src/net/forwarder-main.ts). Under tsx each start compiled and loaded its
// sources anew: three instances at once took 5.5 s to answer /health on an idle 2-core machine, their
// bundle 2.5 s, and every cluster boot, instance restart and load run waits for that. A bundle is
// made once per content of its inputs and kept in node_modules/.cache/stocklab/: a changed source
// makes a new one. The compose image's instances run the same bundle, written when it is built.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { buildSync, version as esbuildVersion } from 'esbuild';
import { CACHE_DIR, REPO_ROOT } from './paths.js';

/** What the last build of an entry read (its inputs, relative to the repository) and the hash of their contents. */
interface BuildRecord {
  hash: string;
  inputs: string[];
}

const nameOf = (entry: string) => path.basename(entry, path.extname(entry));
const recordFile = (entry: string) => path.join(CACHE_DIR, `${nameOf(entry)}.json`);
const bundleFile = (entry: string, hash: string) => path.join(CACHE_DIR, `${nameOf(entry)}-${hash}.mjs`);

function hashOf(inputs: readonly string[]): string | undefined {
  const h = crypto.createHash('sha256').update(`esbuild ${esbuildVersion}\0`);
  for (const input of inputs) {
    const file = path.join(REPO_ROOT, input);
    if (!fs.existsSync(file)) return undefined;
    h.update(input).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return h.digest('hex').slice(0, 16);
}

function readRecord(entry: string): BuildRecord | undefined {
  try {
    return JSON.parse(fs.readFileSync(recordFile(entry), 'utf8')) as BuildRecord;
  } catch {
    return undefined;
  }
}

/** Written under a name of this process's, then renamed: two processes building at once each leave a whole file. */
function writeWhole(file: string, content: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, content);
  fs.renameSync(tmp, file);
}

/** esbuild's bundle of `entry` (a path under the repository): its text and the inputs it read, relative to the repository. */
function build(entry: string): { text: string; inputs: string[] } {
  const built = buildSync({
    absWorkingDir: REPO_ROOT,
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    // stack traces in the logs name the sources' lines (node --enable-source-maps)
    sourcemap: 'inline',
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const output = built.outputFiles[0];
  if (!output) throw new Error(`the bundle of ${entry} could not be made`);
  return { text: output.text, inputs: Object.keys(built.metafile.inputs).sort() };
}

/**
 * The bundle of `entry` (a path under the repository), made now if its sources changed since the
 * last one (about 0.7 s for the service); run it with `node --enable-source-maps`.
 */
export function bundleOf(entry: string): string {
  const record = readRecord(entry);
  if (record && hashOf(record.inputs) === record.hash && fs.existsSync(bundleFile(entry, record.hash))) return bundleFile(entry, record.hash);
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const { text, inputs } = build(entry);
  const hash = hashOf(inputs);
  if (!hash) throw new Error(`the bundle of ${entry} could not be made`);
  writeWhole(bundleFile(entry, hash), text);
  writeWhole(recordFile(entry), JSON.stringify({ hash, inputs } satisfies BuildRecord));
  return bundleFile(entry, hash);
}

/**
 * The bundle of `entry` written to `file` (under the repository, so it finds the repository as the
 * sources do), for an image whose command names it: the Dockerfile's service bundle.
 */
export function writeBundle(entry: string, file: string): void {
  const out = path.resolve(REPO_ROOT, file);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, build(entry).text);
}

/** The service's instances' bundle. */
export const serviceBundle = (): string => bundleOf('src/main.ts');
