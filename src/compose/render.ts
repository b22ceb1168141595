// A topology of the repository's compose files, rendered into a file of its own with every
// published port moved to a free loopback port: for the compose test, and for `npm run compose --
// --free-ports` beside a native cluster that holds the default ports. An override cannot do it: compose v1 adds an
// override's ports to the base file's instead of replacing them, so the base's 8080, 13306, … would
// still be published (and collide with a native cluster on its defaults). The user's files stay as
// they are; `config` resolves them (anchors, overrides, relative paths) and only ports change. The
// network keeps its fixed subnet (docker-compose.yml), so two of its projects cannot run at once.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePorts, LOOPBACK } from '../cluster/ports.js';
import { compose, type ComposeProject } from './compose.js';

const run = promisify(execFile);

type Port = string | { target: number; published?: string | number; host_ip?: string; protocol?: string; mode?: string };
interface Service {
  image?: string;
  build?: unknown;
  ports?: Port[];
  profiles?: string[];
}
export interface ComposeModel {
  services: Record<string, Service>;
}

/** A Python that reads YAML: v1's own (docker-compose is one), else python3. */
async function yamlToJson(yaml: string, composeBin: string): Promise<ComposeModel> {
  const shebang = fs
    .readFileSync(composeBin, 'utf8')
    .split('\n')[0]
    ?.replace(/^#!\s*/, '')
    .split(' ')[0];
  const script = 'import sys, json, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))';
  for (const py of [shebang, 'python3'].filter((x): x is string => !!x && !x.includes('/env'))) {
    try {
      const child = run(py, ['-c', script], { maxBuffer: 64 << 20 });
      child.child.stdin?.end(yaml);
      return JSON.parse((await child).stdout) as ComposeModel;
    } catch {
      // try the next one
    }
  }
  throw new Error('render: no Python with PyYAML to read `docker-compose config`');
}

/** The project's files as compose resolves them (anchors, overrides, relative paths, variables). */
export async function resolvedModel(source: ComposeProject): Promise<ComposeModel> {
  if (source.command.length > 1) return JSON.parse(await compose(source, ['config', '--format', 'json'])) as ComposeModel; // v2
  const { stdout: bin } = await run('sh', ['-c', `command -v ${source.command[0]}`]);
  return yamlToJson(await compose(source, ['config']), bin.trim());
}

const targetOf = (p: Port): number => (typeof p === 'string' ? Number(/(\d+)(?:\/\w+)?$/.exec(p)?.[1]) : p.target);

export interface Rendered {
  project: ComposeProject;
  /** Published ports, service:containerPort → host port. */
  ports: Record<string, number>;
}

/** Writes `<dir>/<name>.json` (JSON is YAML) and returns a project that runs it under `name`. */
export async function renderOnFreePorts(source: ComposeProject, name: string, dir: string): Promise<Rendered> {
  const model = await resolvedModel(source);
  const published = Object.entries(model.services).flatMap(([svc, s]) => (s.ports ?? []).map((p) => ({ svc, target: targetOf(p) })));
  const free = await freePorts(published.length);
  const ports: Record<string, number> = {};
  for (const s of Object.values(model.services)) s.ports = [];
  published.forEach(({ svc, target }, i) => {
    const host = free[i] as number;
    ports[`${svc}:${target}`] = host;
    model.services[svc]?.ports?.push(`${LOOPBACK}:${host}:${target}`);
  });
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(model, null, 2));
  return { project: { ...source, files: [file], name }, ports };
}
