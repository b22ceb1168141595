// `npm run compose -- up|down|bench|faults [--topology replicated]`: the docker compose cluster of
// this repository, brought up and measured with the same bench and checks as the native one.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { COMPOSE_FLAGS } from '../src/compose/cli-options.js';
import { parseFlags, runCli, UsageError } from '../src/cli/args.js';
import { expectedSafety } from './checks.js';
import {
  detectCompose,
  down,
  endpointsOf,
  OPTIONAL_PROFILES,
  publishedAddress,
  ROOT,
  topologyFiles,
  untilEveryInstanceGreen,
  up,
  type ComposeEndpoints,
  type ComposeProject,
  type ComposeTopologyName,
} from '../src/compose/compose.js';
import { redisFailover } from './failover.js';
import { describeStep, ensureImages, imagesOf, PullFailed } from '../src/compose/images.js';
import { renderOnFreePorts } from '../src/compose/render.js';

export const USAGE = `usage: npm run compose -- <command> [--topology base|replicated] [--profile metrics|live]… [--project NAME] [--free-ports] [--stand-ins] [-- bench options]
  up       pull the images it lacks, build and start the topology, wait until every service is
           healthy, print its addresses
  down     stop it and remove its containers, networks and volumes (down -v)
  bench    run \`npm run bench\` against it: nginx and app1 through their published ports, units
           left read from its MySQL, Redis and PostgreSQL; options after a second -- go to the bench
  faults   kill the Redis master of the replicated topology; Sentinel promotes the replica and a
           race through nginx must stay exact (replicated topology only)
  --topology   base (docker-compose.yml, default) or replicated (+ docker-compose.replicated.yml)
  --profile    turn on an optional service: metrics (Prometheus scraping the instances, on 9090), live
               (the live lab's page against this stack, on 8090); repeat for both. \`down\` takes
               every profile down whatever is given
  --project    compose project name (default: compose's own, the directory name)
  --free-ports publish on free loopback ports instead of the files' (8080, 8000, 13306, …, which a
               native cluster holds): \`up\` writes the moved topology to .stocklab/compose/<project>.json
               and the other commands use it while it exists (\`down\` removes it)
  --stand-ins  up: no registry asked; an image the engine lacks is built under its tag from Debian
               packages on a debootstrapped base (src/compose/standins/; needs debootstrap, root
               and a Debian mirror), cached as the compose test caches them
Uses \`docker compose\` (v2) when installed, else \`docker-compose\` (v1).`;

const COMMANDS = ['up', 'down', 'bench', 'faults'] as const;
type Command = (typeof COMMANDS)[number];

const say = (line: string) => console.error(line);

async function main(argv: string[]): Promise<number> {
  const split = argv.indexOf('--');
  const own = split < 0 ? argv : argv.slice(0, split);
  const benchArgs = split < 0 ? [] : argv.slice(split + 1);
  const { values, positionals } = parseFlags(own, COMPOSE_FLAGS, true);
  const [given, ...extra] = positionals;
  if (!COMMANDS.includes(given as Command) || extra.length > 0)
    throw new UsageError(`expected one command of ${COMMANDS.join(', ')}, got "${positionals.join(' ')}"`);
  if (values.topology !== undefined && values.topology !== 'base' && values.topology !== 'replicated')
    throw new UsageError(`--topology must be base or replicated, got "${values.topology}"`);
  const command = given as Command;
  const topology: ComposeTopologyName = values.topology ?? 'base';
  const name = values.project;
  const freePorts = values['free-ports'] ?? false;
  const profiles = values.profile ?? [];
  const standIns = values['stand-ins'] ?? false;
  if (standIns && command !== 'up') throw new UsageError('--stand-ins goes with up');
  const unknownProfile = profiles.find((x) => !(OPTIONAL_PROFILES as readonly string[]).includes(x));
  if (unknownProfile !== undefined) throw new UsageError(`--profile must be one of ${OPTIONAL_PROFILES.join(', ')}, got "${unknownProfile}"`);
  const tool = detectCompose();
  if (!tool) throw new Error('neither `docker compose` nor `docker-compose` is installed');
  // down takes every optional service down too, whichever profiles its up had
  let project: ComposeProject = {
    command: tool,
    files: topologyFiles(topology),
    name,
    directory: ROOT,
    profiles: command === 'down' ? [...OPTIONAL_PROFILES] : profiles,
  };
  if (freePorts) project = await movedProject(project, topology, command);

  switch (command) {
    case 'up': {
      // before compose's own pull, which fails late and without the ways on
      const images = await ensureImages(await imagesOf(project), standIns ? 'stand-in' : 'pull', say).catch((err: unknown) => {
        throw err instanceof PullFailed ? new PullFailed(err.image, err.reason, `npm run compose -- ${argv.join(' ')} --stand-ins`) : err;
      });
      for (const s of images) say(describeStep(s));
      const t0 = Date.now();
      await up(project, 300_000, say);
      const e = await endpointsOf(project);
      await untilEveryInstanceGreen(e.nginx);
      console.log(
        `${topology} topology healthy in ${((Date.now() - t0) / 1000).toFixed(1)} s\n  nginx    ${e.nginx}\n  app1     ${e.instance}\n  mysql    ${e.stores.mysql.host}:${e.stores.mysql.port}\n  redis    ${e.stores.redis.replace(/\/\/:[^@]*@/, '//')}${e.stores.postgres ? `\n  postgres ${e.stores.postgres.host}:${e.stores.postgres.port}` : ''}`,
      );
      for (const [profile, service, port] of [
        ['metrics', 'prometheus', 9090],
        ['live', 'live', 8090],
      ] as const) {
        if (!profiles.includes(profile)) continue;
        const a = await publishedAddress(project, service, port);
        console.log(`  ${service.padEnd(8)} http://${a.host}:${a.port}/`);
      }
      return 0;
    }
    case 'down':
      await down(project);
      if (freePorts) fs.rmSync(project.files[0] as string, { force: true });
      return 0;
    case 'bench': {
      return benchAgainst(await endpointsOf(project), benchArgs);
    }
    case 'faults': {
      if (topology !== 'replicated') throw new UsageError('faults: the Redis failover needs the replicated topology (--topology replicated)');
      const e = await endpointsOf(project);
      const r = await redisFailover(project, {
        nginx: e.nginx,
        stores: e.stores,
        strategy: 'redis-pubsub',
        initial: 300,
        requests: 400,
        connections: 50,
        boundMs: 30_000,
      });
      const problems = expectedSafety(r.race);
      console.log(`redis master ${r.oldMaster} killed: Sentinel promoted ${r.newMaster} in ${r.promotedMs} ms, /health green in ${r.healthyMs} ms`);
      console.log(
        `race ${r.race.strategy} through nginx after it: ${r.race.ok} sold, ${r.race.deducted} deducted, ${r.race.oversold} oversold, ${r.race.noAnswer} unanswered`,
      );
      if (problems.length > 0) console.log(`NOT exact: ${problems.join('; ')}`);
      console.log('(the killed Redis stays down until `npm run compose -- down` with the same flags)');
      return problems.length === 0 ? 0 : 1;
    }
  }
}

/**
 * `npm run bench` in its own process, pointed at the compose cluster by its flags: nginx and app1,
 * and the stores to count units left in, at their published ports. The bench checks its own flags
 * (the user's come first, so these addresses win).
 */
function benchAgainst(e: ComposeEndpoints, benchArgs: readonly string[]): Promise<number> {
  const sql = (scheme: string, a: ComposeEndpoints['stores']['mysql']) =>
    `${scheme}://${encodeURIComponent(a.user)}:${encodeURIComponent(a.password)}@${a.host}:${a.port}/${a.database}`;
  const { mysql, redis, postgres } = e.stores;
  const flags = [
    '--target',
    e.nginx,
    '--instance',
    e.instance,
    '--mysql',
    sql('mysql', mysql),
    '--redis',
    redis,
    ...(postgres ? ['--postgres', sql('postgres', postgres)] : []),
  ];
  const bench = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/run.ts'), ...benchArgs, ...flags], { stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    bench.on('error', reject);
    bench.on('exit', (code) => resolve(code ?? 1));
  });
}

/** The topology on free ports: rendered by `up` (project name required by compose for a file of
 * its own), reused by the other commands. */
async function movedProject(source: ComposeProject, topology: ComposeTopologyName, command: Command): Promise<ComposeProject> {
  const name = source.name ?? `stocklab-${topology}`;
  const dir = path.join(ROOT, '.stocklab', 'compose');
  const file = path.join(dir, `${name}.json`);
  if (fs.existsSync(file)) return { ...source, name, files: [file] };
  if (command !== 'up') throw new Error(`no ${path.relative(ROOT, file)}: bring it up with --free-ports first`);
  fs.mkdirSync(dir, { recursive: true });
  return (await renderOnFreePorts(source, name, dir)).project;
}

runCli('compose', USAGE, () => main(process.argv.slice(2)));
