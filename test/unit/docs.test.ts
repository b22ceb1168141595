// The docs stay true to the code: every npm script, flag, endpoint, environment variable, strategy
// name and repository path that README.md, README.zh-CN.md, docs/*.md and their Chinese twins
// (docs/zh-CN/*.md) name exists. Pure: reads files and the code's own definitions (flags,
// variables), starts no server. That the twins match their pages is docs-twins.test.ts's.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { blockNames } from '../../docgen/blocks.js';
import { DOCS_FLAGS, GENERATED_BLOCKS, ZH_DOCS } from '../../docgen/docs.js';
import { BENCH_FLAGS, LAB_FLAGS, ROUND_TRIPS_FLAGS } from '../../bench/options.js';
import { FAULT_FLAGS } from '../../faults/options.js';
import { MUTATION_FLAGS } from '../../mutation/options.js';
import { KUBERNETES_FLAGS } from '../../faults/kubernetes/options.js';
import { SOAK_FLAGS } from '../../faults/soak/options.js';
import { SCENARIOS } from '../../faults/scenarios/index.js';
import { CLUSTER_COMMANDS, CLUSTER_FLAGS } from '../../src/cluster/cli-options.js';
import { COMPOSE_FLAGS } from '../../src/compose/cli-options.js';
import { LIVE_FLAGS } from '../../live/cli-options.js';
import { ENV_VARIABLES } from '../../src/env.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

const pagesIn = (dir: string) =>
  fs.existsSync(path.join(ROOT, dir))
    ? fs
        .readdirSync(path.join(ROOT, dir))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `${dir}/${f}`)
    : [];
const DOCS = ['README.md', 'README.zh-CN.md', ...pagesIn('docs'), ...pagesIn(ZH_DOCS)];
const texts = new Map(DOCS.map((d) => [d, read(d)]));

/** Every match of `re`'s first group in every doc, with where it was found. */
function found(re: RegExp, docs: ReadonlyMap<string, string> = texts): { name: string; where: string }[] {
  return [...docs].flatMap(([doc, text]) => [...text.matchAll(re)].map((m) => ({ name: m[1] as string, where: doc })));
}

/** The names not in `known`, as "name (doc)", so a failure says what to fix and where. */
const unknown = (names: { name: string; where: string }[], known: (n: string) => boolean) => [
  ...new Set(names.filter((n) => !known(n.name)).map((n) => `${n.name} (${n.where})`)),
];

const backticked = () => found(/`([^`\n]+)`/g);

// --- what the code defines ---

const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);

/** The flags each npm script's CLI accepts, from the option definitions its parser uses. */
const FLAGS: Record<string, readonly string[]> = {
  bench: Object.keys(BENCH_FLAGS),
  lab: [...Object.keys(BENCH_FLAGS), ...Object.keys(LAB_FLAGS)],
  faults: Object.keys(FAULT_FLAGS),
  cluster: Object.keys(CLUSTER_FLAGS),
  live: Object.keys(LIVE_FLAGS),
  soak: Object.keys(SOAK_FLAGS),
  kubernetes: Object.keys(KUBERNETES_FLAGS),
  docs: Object.keys(DOCS_FLAGS),
  mutation: Object.keys(MUTATION_FLAGS),
  'round-trips': Object.keys(ROUND_TRIPS_FLAGS),
  // after a second --, the bench's
  compose: [...Object.keys(COMPOSE_FLAGS), ...Object.keys(BENCH_FLAGS)],
};

function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/**
 * The service's routes, parsed from their registrations (readRoute / changingGetRoute / postRoute):
 * the demo groups add theirs only once their servers are open, so the running app cannot be asked
 * without servers. A `${…}` in a template path matches one segment.
 */
const ROUTE_PATHS = sourceFiles('src').flatMap((file) =>
  [...fs.readFileSync(file, 'utf8').matchAll(/(?:readRoute|changingGetRoute|postRoute)\(\s*app,\s*(['`])(.+?)\1/g)].map((m) => m[2] as string),
);
const ROUTES = ROUTE_PATHS.map((p) => new RegExp(`^${p.replace(/\$\{[^}]+\}/g, '[^/]+')}$`));
/** A path the app serves, or a folder of paths it serves (`/test/`). */
const isRoute = (p: string) => (p.endsWith('/') ? ROUTE_PATHS.some((r) => r.startsWith(p)) : ROUTES.some((r) => r.test(p)));

/**
 * The strategy names: the catalog builds them in its family modules (src/strategies/), with no
 * static list to import and no way to list them without opening the servers; every name is a string
 * literal there.
 */
const STRATEGY_SHAPE = /^(none|mutex|redlock|(?:sql|redis|redlock|zk|mysql|lib)(?:-[a-z0-9]+)+)(\+line)?$/;
const STRATEGIES = new Set(
  sourceFiles('src/strategies').flatMap((file) => {
    const text = fs.readFileSync(file, 'utf8');
    // A declaration given to withLinedRow (src/strategies/lined.ts) has a `+line` row too.
    const lined = [...text.matchAll(/withLinedRow\(\s*\{\s*name: '([a-z0-9-]+)'/g)].map((m) => `${m[1]}+line`);
    return [...[...text.matchAll(/'([a-z0-9-]+)'/g)].map((m) => m[1] as string).filter((s) => STRATEGY_SHAPE.test(s)), ...lined];
  }),
);
/** Names of that shape that are not strategies: fault scenarios, and packages the docs name. */
const NOT_STRATEGIES = new Set([...SCENARIOS.map((s) => s.name), 'redis-server', 'redis-semaphore', 'mariadb-server']);

/** The compose stand-ins' files (their entrypoints read the official images' variables). */
const STANDIN_FILES = fs
  .readdirSync(path.join(ROOT, 'src/compose/standins'), { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile())
  .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));

/**
 * Variables: what src/config.ts parses, what the compose files take from the environment or set,
 * and what the stand-in images read.
 */
const VARIABLES = new Set([
  ...ENV_VARIABLES,
  ...['docker-compose.yml', 'docker-compose.replicated.yml'].flatMap((f) => [...read(f).matchAll(/\$\{(\w+)/g)].map((m) => m[1] as string)),
  ...['docker-compose.yml', 'docker-compose.replicated.yml', 'Dockerfile', ...STANDIN_FILES].flatMap((f) =>
    [...read(f).matchAll(/\b([A-Z][A-Z0-9]*_[A-Z0-9_]+)\b/g)].map((m) => m[1] as string),
  ),
]);
/** UPPER_CASE words the docs show that are not variables (SQL, a column attribute). */
const NOT_VARIABLES = new Set(['AUTO_INCREMENT', 'LOCK_NAME', 'CAP_NET_ADMIN']); // SQL words and a Linux capability

/** Output folders the runs create (git-ignored), which a fresh clone does not have. */
const IGNORED = read('.gitignore')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const TOP_DIRS = fs
  .readdirSync(ROOT, { withFileTypes: true })
  .filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules')
  .map((e) => e.name);

function pathExists(rel: string): boolean {
  if (IGNORED.some((i) => rel.startsWith(i))) return true;
  if (!rel.includes('*')) return fs.existsSync(path.join(ROOT, rel));
  const dir = path.dirname(rel);
  const pattern = new RegExp(
    `^${path
      .basename(rel)
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')}$`,
  );
  return fs.existsSync(path.join(ROOT, dir)) && fs.readdirSync(path.join(ROOT, dir)).some((f) => pattern.test(f));
}

// --- what the docs name ---

/** `npm run X -- args` up to the end of its line, code span or comment. */
const invocations = () =>
  found(/npm run ([\w:-]+ -- [^`#\n)]*)/g).map(({ name, where }) => {
    // a quoted argument is one value (`--command "npm run lab -- --stop"`: that one is matched on its own)
    const [script = '', , ...args] = name
      .replace(/"[^"]*"/g, 'VALUE')
      .replace(/"/g, '')
      .trim()
      .split(/\s+/);
    return { script, args, where };
  });

describe('the docs', () => {
  it('name only npm scripts that package.json has', () => {
    const named = [...found(/npm run ([\w:-]+)/g), ...found(/npm (test|start)\b/g)];
    expect(named.length).toBeGreaterThan(10);
    expect(unknown(named, (n) => scripts.includes(n))).toEqual([]);
  });

  it('give npm scripts only flags their parsers accept', () => {
    const given = invocations();
    expect(given.length).toBeGreaterThan(5);
    const bad = given.flatMap(({ script, args, where }) =>
      args
        .filter((a) => a.startsWith('--'))
        .map((a) => a.slice(2).split('=')[0] as string)
        .filter((flag) => !(FLAGS[script] ?? []).includes(flag))
        .map((flag) => `npm run ${script} -- --${flag} (${where})`),
    );
    expect(bad).toEqual([]);
  });

  it('give npm run cluster only its commands', () => {
    const bad = invocations()
      .filter((i) => i.script === 'cluster')
      .flatMap(({ args, where }) =>
        (args[0] ?? '')
          .split('|')
          .filter((c) => !(CLUSTER_COMMANDS as readonly string[]).includes(c))
          .map((c) => `${c} (${where})`),
      );
    expect(bad).toEqual([]);
  });

  it('name only endpoints the app registers', () => {
    expect(ROUTES.length).toBeGreaterThan(15);
    const named = [
      ...found(/\b(?:GET|POST|HEAD|DELETE|PUT) (\/[\w/.-]*)/g),
      ...found(/(?:localhost|127\.0\.0\.1):\d+(\/[\w/.-]+)/g),
      // a path in backticks, with or without its query; ZooKeeper's node paths are under /stocklab
      ...found(/`(\/(?!stocklab\b)[a-z][\w/.-]*)(?:\?[^`]*)?`/g),
    ];
    expect(named.length).toBeGreaterThan(20);
    expect(unknown(named, isRoute)).toEqual([]);
  });

  it('name only environment variables that src/config.ts or the compose files read', () => {
    const named = [
      ...backticked().filter(({ name }) => /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(name)),
      ...backticked()
        .filter(({ name }) => /^[A-Z][A-Z0-9_]*=/.test(name))
        .map(({ name, where }) => ({ name: name.split('=')[0] as string, where })),
    ].filter(({ name }) => !NOT_VARIABLES.has(name));
    expect(named.length).toBeGreaterThan(10);
    expect(unknown(named, (v) => VARIABLES.has(v))).toEqual([]);
  });

  it('name only strategies the catalog has', () => {
    expect(STRATEGIES.size).toBeGreaterThan(20);
    const named = [
      ...backticked().filter(({ name }) => STRATEGY_SHAPE.test(name) && !NOT_STRATEGIES.has(name)),
      ...found(/strategy=([\w-]+)/g).filter(({ name }) => name !== 'NAME'),
      // `--strategies a,b` in a usage text names no strategy
      ...found(/--strateg(?:y|ies) ([\w,-]+)/g).flatMap(({ name, where }) =>
        name
          .split(',')
          .filter((n) => n.length > 1)
          .map((n) => ({ name: n, where })),
      ),
    ];
    expect(unknown(named, (s) => STRATEGIES.has(s))).toEqual([]);
  });

  it('name only repository paths that exist', () => {
    const top = new RegExp(`^(?:${TOP_DIRS.join('|')})/[\\w./*-]*$`);
    const inTicks = backticked().filter(({ name }) => top.test(name) || /^docker-compose[\w.-]*\.yml$|^package\.json$/.test(name));
    const links = found(/\]\(((?!https?:|#|mailto:)[^)\s]+)\)/g).map(({ name, where }) => ({
      name: path.relative(ROOT, path.resolve(ROOT, path.dirname(where), name.split('#')[0] as string)),
      where,
    }));
    expect(inTicks.length + links.length).toBeGreaterThan(20);
    expect(unknown([...inTicks, ...links], pathExists)).toEqual([]);
  });

  it('keep every table cell short', () => {
    const long = [...texts].flatMap(([doc, text]) =>
      text
        .split('\n')
        .filter((l) => l.startsWith('|'))
        .flatMap((l) => l.split(/(?<!\\)\|/))
        .filter((c) => c.length > 300)
        .map((c) => `${doc}: ${c.slice(0, 60)}…`),
    );
    expect(long).toEqual([]);
  });

  it('hold only generated blocks that npm run docs writes, each closed', () => {
    for (const [doc, text] of texts) {
      const opened = [...text.matchAll(/<!-- generated:([a-z-]+) -->/g)].map((m) => m[1]);
      expect(blockNames(text), doc).toEqual(opened);
      expect(
        opened.filter((n) => !(GENERATED_BLOCKS as readonly (string | undefined)[]).includes(n)),
        doc,
      ).toEqual([]);
    }
  });
});
