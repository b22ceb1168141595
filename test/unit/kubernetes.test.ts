// deploy/kubernetes/'s objects, checked offline (no cluster runs here): each against Kubernetes'
// own schema (kubernetes-models' validate), and against the service they run: the variables it
// reads, the routes it serves, the ports its containers open. Pure: builds objects, starts nothing.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IContainer, IPodSpec, IProbe } from 'kubernetes-models/v1';
import { createApp } from '../../src/app.js';
import { loadServiceConfig } from '../../src/config.js';
import { ENV_VARIABLES } from '../../src/env.js';
import { loadClusterConfig, serviceEnvFor } from '../../src/cluster/layout.js';
import { APP, APP_ENV, PRE_STOP_SECONDS, REPLICAS, terminationGraceSeconds } from '../../src/kubernetes/app.js';
import { appImage, IMAGES } from '../../src/kubernetes/images.js';
import { topologyObjects } from '../../src/kubernetes/manifests.js';
import { ConfigMap, Deployment, Job, PodDisruptionBudget, Secret, Service, StatefulSet, type Manifest } from '../../src/kubernetes/objects.js';
import { OVERLAYS, PORTS, type Overlay } from '../../src/kubernetes/topology.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** GET routes of the Express app, listed from its router: createApp only registers them, so stand-ins for its dependencies do. */
function servedGetPaths(): string[] {
  const config = loadServiceConfig({});
  const app = createApp(
    { config, logger: {}, stock: {}, redis: {} } as never,
    { list: () => [] } as never,
    { routes: () => undefined } as never,
    { isDraining: false } as never,
  );
  const stack = (app as unknown as { router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] } }).router.stack;
  return stack.flatMap((l) => (l.route?.methods.get ? [l.route.path] : []));
}

type Workload = Deployment | StatefulSet | Job;
const isWorkload = (o: Manifest): o is Workload => o instanceof Deployment || o instanceof StatefulSet || o instanceof Job;
const podSpec = (w: Workload): IPodSpec | undefined => w.spec?.template.spec;
const podLabels = (w: Workload): Record<string, string> => w.spec?.template.metadata?.labels ?? {};
const probesOf = (c: IContainer): IProbe[] => [c.readinessProbe, c.livenessProbe, c.startupProbe].filter((p): p is IProbe => p !== undefined);

/** Every variable a container is given, by name: env, and envFrom's ConfigMaps and Secrets resolved among `objects`. */
function envNames(c: IContainer, objects: readonly Manifest[]): string[] {
  const fromSources = (c.envFrom ?? []).flatMap((src) => {
    const ref = src.configMapRef?.name ?? src.secretRef?.name;
    const found = objects.find((o) => (o instanceof ConfigMap || o instanceof Secret) && o.metadata?.name === ref);
    if (!found) throw new Error(`envFrom names ${ref}, which no object of the topology is`);
    return found instanceof ConfigMap ? Object.keys(found.data ?? {}) : Object.keys((found as Secret).stringData ?? {});
  });
  return [...(c.env ?? []).map((e) => e.name), ...fromSources];
}

function appDeployment(objects: readonly Manifest[]): Deployment {
  const d = objects.find((o): o is Deployment => o instanceof Deployment && o.metadata?.name === APP);
  if (!d) throw new Error('no app Deployment');
  return d;
}

const appContainer = (objects: readonly Manifest[]): IContainer => podSpec(appDeployment(objects))?.containers[0] as IContainer;

/** What the native cluster sets for an instance (`npm run cluster -- up`, the topology's own defaults). */
const nativeEnv = (overlay: Overlay) => Object.keys(serviceEnvFor(loadClusterConfig({ TOPOLOGY: overlay }), 8000));

describe.each(OVERLAYS)('the %s topology', (overlay) => {
  const objects = topologyObjects(overlay);
  const workloads = objects.filter(isWorkload);

  it("validates every object against Kubernetes' schema", () => {
    expect(objects.length).toBeGreaterThan(10);
    for (const o of objects) expect(() => o.validate(), `${o.kind} ${o.metadata?.name}`).not.toThrow();
  });

  it('gives the instances every variable the native cluster sets, and only variables the service reads', () => {
    for (const w of workloads.filter((x) => x.metadata?.name?.startsWith(APP))) {
      const given = envNames(podSpec(w)?.containers[0] as IContainer, objects);
      expect(
        nativeEnv(overlay).filter((v) => !given.includes(v)),
        `${w.metadata?.name} lacks`,
      ).toEqual([]);
      expect(
        given.filter((v) => !ENV_VARIABLES.includes(v)),
        `${w.metadata?.name} sets what the service never reads`,
      ).toEqual([]);
    }
  });

  it('probes the instances on routes the app serves, on the port it listens on', () => {
    const served = servedGetPaths();
    const probes = [
      ...probesOf(appContainer(objects)),
      ...workloads.filter((w) => w.metadata?.name === 'nginx').flatMap((w) => probesOf(podSpec(w)?.containers[0] as IContainer)),
    ];
    const paths = probes.flatMap((p) => (p.httpGet ? [p.httpGet.path] : []));
    expect(paths.length).toBeGreaterThanOrEqual(4);
    expect(paths.filter((p) => !served.includes(p ?? ''))).toEqual([]);
  });

  it('probes every container on a port it exposes, and gives each resources and a readiness probe', () => {
    for (const w of workloads) {
      for (const c of podSpec(w)?.containers ?? []) {
        const where = `${w.metadata?.name}/${c.name}`;
        expect(c.resources?.requests, where).toBeDefined();
        expect(c.resources?.limits, where).toBeDefined();
        expect(c.image, where).toMatch(/:[^:/]+$/);
        expect(c.image, where).not.toMatch(/:latest$/);
        // A Job runs to its end and serves nothing: no readiness to report.
        if (w instanceof Job) continue;
        expect(c.readinessProbe, where).toBeDefined();
        const ports = (c.ports ?? []).map((p) => p.containerPort);
        for (const p of probesOf(c)) {
          const port = p.httpGet?.port ?? p.tcpSocket?.port;
          if (port !== undefined) expect(ports, where).toContain(port);
        }
      }
    }
  });

  it('has every Service select pods that exist, on ports their containers expose', () => {
    const services = objects.filter((o): o is Service => o instanceof Service);
    expect(services.length).toBeGreaterThan(5);
    for (const s of services) {
      const selector = Object.entries(s.spec?.selector ?? {});
      expect(selector.length, s.metadata?.name).toBeGreaterThan(0);
      const selected = workloads.filter((w) => !(w instanceof Job) && selector.every(([k, v]) => podLabels(w)[k] === v));
      expect(selected.length, `${s.metadata?.name} selects no pods`).toBeGreaterThan(0);
      const exposed = selected.flatMap((w) => (podSpec(w)?.containers ?? []).flatMap((c) => (c.ports ?? []).map((p) => p.containerPort)));
      for (const p of s.spec?.ports ?? []) expect(exposed, `${s.metadata?.name} port ${p.port}`).toContain(p.targetPort);
    }
  });

  it('mounts only ConfigMaps and Secrets the topology has', () => {
    const names = objects.filter((o) => o instanceof ConfigMap || o instanceof Secret).map((o) => o.metadata?.name);
    for (const w of workloads) for (const v of podSpec(w)?.volumes ?? []) if (v.configMap) expect(names, `${w.metadata?.name}`).toContain(v.configMap.name);
    expect(names).toContain(APP_ENV);
  });

  it('runs three instances, a PodDisruptionBudget over them that lets one go, and a grace that covers the drain', () => {
    const d = appDeployment(objects);
    expect(d.spec?.replicas).toBe(REPLICAS);
    const pdb = objects.find((o): o is PodDisruptionBudget => o instanceof PodDisruptionBudget);
    expect(pdb?.spec?.selector?.matchLabels).toEqual(d.spec?.selector.matchLabels);
    expect(pdb?.spec?.minAvailable).toBeLessThan(REPLICAS);
    const graceMs = (podSpec(d)?.terminationGracePeriodSeconds ?? 0) * 1000;
    // service.ts: DRAIN_MS for running deductions, then 1 s for the aborted to answer and 1 s for the sockets.
    expect(graceMs).toBeGreaterThanOrEqual(PRE_STOP_SECONDS * 1000 + loadServiceConfig({}).drainMs + 2_000);
    expect(terminationGraceSeconds(20_000)).toBeGreaterThan(terminationGraceSeconds());
  });
});

describe('the images', () => {
  it("are the ones docker compose runs, and the service's own image carries the package version", () => {
    const compose = ['docker-compose.yml', 'docker-compose.replicated.yml'].map((f) => fs.readFileSync(path.join(ROOT, f), 'utf8')).join('\n');
    for (const image of Object.values(IMAGES)) expect(compose).toContain(`image: ${image}`);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(appImage()).toBe(`stocklab:${pkg.version}`);
  });
});

describe('the checks themselves', () => {
  const objects = topologyObjects('single');

  it('name a variable the service does not read', () => {
    const c = JSON.parse(JSON.stringify(appContainer(objects))) as IContainer;
    c.env = [...(c.env ?? []), { name: 'MYSQL_HOSTNAME', value: 'mysql' }];
    expect(envNames(c, objects).filter((v) => !ENV_VARIABLES.includes(v))).toEqual(['MYSQL_HOSTNAME']);
  });

  it("refuse a Deployment without a selector (Kubernetes' schema)", () => {
    const broken = new Deployment(JSON.parse(JSON.stringify(appDeployment(objects).toJSON())) as Deployment);
    delete (broken.spec as { selector?: unknown }).selector;
    expect(() => broken.validate()).toThrow(/selector/);
  });

  it("list the app's routes from its router", () => {
    expect(servedGetPaths()).toEqual(expect.arrayContaining(['/health', '/noop', '/stock']));
    expect(servedGetPaths()).not.toContain('/ready');
  });

  it('resolve the env from the ConfigMap', () => {
    expect(envNames(appContainer(objects), objects)).toEqual(
      expect.arrayContaining(['INSTANCE_ID', 'MYSQL_PASSWORD', 'MYSQL_HOST', 'REDLOCK_URLS', 'ETCD_ENDPOINTS']),
    );
    expect(PORTS.app).toBe(loadServiceConfig({}).port);
  });
});
