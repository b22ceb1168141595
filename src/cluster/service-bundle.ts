// The native cluster's instances run one ESM bundle of src/main.ts, made by esbuild (tsx's own
// dependency, the same transform tsx applies file by file), with the packages left to node_modules.
// Under tsx an instance compiled and loaded some 140 files at each start: three at once took 5.5 s
// to answer /health on an idle 2-core machine, the bundle 2.5 s, and every cluster boot and
// instance restart (the lab, the tests, the fault lab) waits for that. The bundle is made once per
// content of its inputs and kept in node_modules/.cache/stocklab/: a changed source makes a new one.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { buildSync, version as esbuildVersion } from 'esbuild';
import { REPO_ROOT } from '../paths.js';

const CACHE_DIR = path.join(REPO_ROOT, 'node_modules', '.cache', 'stocklab');
/** What the last build read (its inputs, relative to the repository) and the hash of their contents. */
const RECORD = path.join(CACHE_DIR, 'service.json');
const ENTRY = 'src/main.ts';

interface BuildRecord {
  hash: string;
  inputs: string[];
}

const bundleFile = (hash: string) => path.join(CACHE_DIR, `service-${hash}.mjs`);

function hashOf(inputs: readonly string[]): string | undefined {
  const h = crypto.createHash('sha256').update(`esbuild ${esbuildVersion}\0`);
  for (const input of inputs) {
    const file = path.join(REPO_ROOT, input);
    if (!fs.existsSync(file)) return undefined;
    h.update(input).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return h.digest('hex').slice(0, 16);
}

function readRecord(): BuildRecord | undefined {
  try {
    return JSON.parse(fs.readFileSync(RECORD, 'utf8')) as BuildRecord;
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

let current: string | undefined;

/** The bundle's path, made now if the sources changed since the last one (about 0.7 s). */
export function serviceBundle(): string {
  const record = readRecord();
  if (current && record && fs.existsSync(current) && current === bundleFile(record.hash) && hashOf(record.inputs) === record.hash) return current;
  if (record && hashOf(record.inputs) === record.hash && fs.existsSync(bundleFile(record.hash))) return (current = bundleFile(record.hash));
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const built = buildSync({
    absWorkingDir: REPO_ROOT,
    entryPoints: [ENTRY],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    // stack traces in the instances' logs name the sources' lines (node --enable-source-maps)
    sourcemap: 'inline',
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const inputs = Object.keys(built.metafile.inputs).sort();
  const hash = hashOf(inputs);
  const output = built.outputFiles[0];
  if (!hash || !output) throw new Error(`the service bundle of ${ENTRY} could not be made`);
  writeWhole(bundleFile(hash), output.text);
  writeWhole(RECORD, JSON.stringify({ hash, inputs } satisfies BuildRecord));
  return (current = bundleFile(hash));
}
