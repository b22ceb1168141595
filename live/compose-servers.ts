// The live lab's servers inside a compose stack: its own project's containers, found through the
// Docker Engine API (labels set by compose), each a Proc driven by that API: pause/unpause for
// freeze and resume, kill/start for crash and restart. Addresses are the compose network's.
import os from 'node:os';
import type { ClusterInfo } from '../src/cluster/cluster.js';
import type { ServiceConfig } from '../src/config.js';
import { pollUntil } from '../src/time.js';
import { DockerEngine, type ContainerInfo } from './docker-engine.js';
import { network } from '../src/net/network.js';
import type { LabServers, Proc } from './servers.js';

const PROJECT_LABEL = 'com.docker.compose.project';
const SERVICE_LABEL = 'com.docker.compose.service';
/** nginx/compose.conf's listen port, on the compose service `nginx`. */
const NGINX = 'http://nginx:8080';
/** A restarted container is healthy (its health check green) within this. */
const START_BOUND_MS = 60_000;

const envOf = (c: ContainerInfo, name: string): string | undefined => c.Config.Env?.find((e) => e.startsWith(`${name}=`))?.slice(name.length + 1);

function containerProc(engine: DockerEngine, name: string, id: string): Proc {
  const state = async () => (await engine.inspect(id)).State;
  return {
    name,
    isUp: async () => (await state()).Running,
    freeze: () => engine.pause(id),
    resume: () => engine.unpause(id),
    async kill() {
      await engine.kill(id);
      await pollUntil(async () => !(await state()).Running, 10_000, 100);
    },
    async start() {
      await engine.start(id);
      const healthy = await pollUntil(
        async () => {
          const s = await state();
          return s.Running && (s.Health === undefined || s.Health.Status === 'healthy');
        },
        START_BOUND_MS,
        250,
      );
      if (!healthy) throw new Error(`${name} was started but is not healthy within ${START_BOUND_MS / 1000} s`);
    },
    // no stoppedItself: compose's instances run without the fault hooks (FAULT_INJECTION)
  };
}

/** This container's compose project: docker names a container's host after its id. */
async function ownProject(engine: DockerEngine): Promise<string> {
  const self = await engine.inspect(os.hostname()).catch((err: Error) => {
    throw new Error(`live: cannot find this container through the Docker API (${err.message}); run it as the compose service \`live\``);
  });
  const project = self.Config.Labels?.[PROJECT_LABEL];
  if (!project) throw new Error('live: this container carries no compose project label; run it as the compose service `live`');
  return project;
}

/** The compose stack this container belongs to, as the live lab's servers. */
export async function composeServers(service: ServiceConfig, engine = new DockerEngine()): Promise<LabServers> {
  const project = await ownProject(engine);
  const ids = await engine.containersWith({ [PROJECT_LABEL]: project });
  const containers = await Promise.all(ids.map(async (id) => ({ id, c: await engine.inspect(id) })));
  const byService = (re: RegExp) =>
    containers
      .map(({ id, c }) => ({ id, c, service: c.Config.Labels?.[SERVICE_LABEL] ?? '' }))
      .filter((x) => re.test(x.service))
      .sort((a, b) => a.service.localeCompare(b.service, 'en', { numeric: true }));
  const apps = byService(/^app\d+$/).map(({ id, c, service: svc }) => {
    const port = envOf(c, 'PORT') ?? '8000';
    return { id, name: envOf(c, 'INSTANCE_ID') ?? `app-${port}`, url: `http://${svc}:${port}` };
  });
  const redlock = byService(/^redlock\d+$/);
  const zookeeper = byService(/^zookeeper$/)[0];
  if (apps.length === 0 || !zookeeper) throw new Error(`live: compose project ${project} has no app or zookeeper containers`);
  const m = service.mysql;
  const pg = service.postgres;
  const info: ClusterInfo = {
    dir: os.tmpdir(),
    nginx: NGINX,
    instances: apps.map((a) => a.url),
    mysql: { host: m.host, port: m.port, user: m.user, password: m.password, database: m.database },
    // the stock's third copy, which the Postgres-only strategies deduct from and the race reads
    postgres: { host: pg.host, port: pg.port, user: pg.user, password: pg.password, database: pg.database },
    redis: service.redis.url,
    redlock: service.redlock.urls,
    zookeeper: service.zookeeper.connect,
  };
  return {
    info,
    // a compose stack's links are Docker's: none to cut or slow from here
    network: network({ noCut: 'cutting links needs the native hosts topology (npm run live -- --topology hosts)' }),
    topology: byService(/^sentinel\d+$/).length > 0 ? 'replicated' : 'single',
    instances: apps.map((a) => containerProc(engine, a.name, a.id)),
    redlock: redlock.map((r) => containerProc(engine, r.service, r.id)),
    zookeeper: containerProc(engine, zookeeper.service, zookeeper.id),
  };
}
