// The service itself: three instances (a Deployment) behind a Service, nginx in front of that with
// the lab's own nginx.conf, the one-shot migration, and the environment serviceEnvFor writes for the
// native cluster, so the instances read the variables they read everywhere else.
import fs from 'node:fs';
import { loadServiceConfig } from '../config.js';
import { serviceEnvFor, type ClusterConfig } from '../cluster/layout.js';
import { NGINX_TEMPLATE, renderNginxConf } from '../cluster/nginx.js';
import { appImage, IMAGES } from './images.js';
import { ConfigMap, Deployment, Job, PodDisruptionBudget, Secret, frontService, labels, resources, selectorOf, tcpProbe, type Manifest } from './objects.js';
import { CREDENTIALS } from './servers.js';
import { PORTS } from './topology.js';

export const APP = 'stocklab';
export const APP_ENV = 'stocklab-env';
export const NGINX = 'nginx';
export const REPLICAS = 3;

/** Variables that hold a secret: in the Secret, never in the ConfigMap. */
export const SECRET_VARIABLES = ['MYSQL_PASSWORD', 'PG_PASSWORD'] as const;

/** Its own for each pod (the pod's name), so the instances' answers and logs tell them apart. */
const PER_POD = 'INSTANCE_ID';

/** The instances' settings beyond where the servers are: every address, and compose's log level. */
const APP_SETTINGS = { HOST: '0.0.0.0', LOG_LEVEL: 'warn' };

/** service.ts's ABORT_GRACE_MS: aborted deductions' time to answer, then again the sockets' before they are closed. */
const ABORT_GRACE_MS = 1_000;
/** Before SIGTERM: long enough for the pod to leave the Service's endpoints, so no new request is sent to a closing instance. */
export const PRE_STOP_SECONDS = 5;
/** Room beyond the drain for the clients' close (Redis, MySQL, PostgreSQL, ZooKeeper sessions). */
const CLOSE_ROOM_MS = 3_000;

/** SIGTERM's grace: the pre-stop pause, the drain (DRAIN_MS), both abort graces and the clients' close. */
export function terminationGraceSeconds(drainMs = loadServiceConfig({}).drainMs): number {
  return Math.ceil((PRE_STOP_SECONDS * 1000 + drainMs + 2 * ABORT_GRACE_MS + CLOSE_ROOM_MS) / 1000);
}

/** The instances' environment for a topology, as serviceEnvFor writes it natively, with the per-pod and secret variables taken out. */
export function appEnv(cluster: ClusterConfig): Record<string, string> {
  const env: Record<string, string> = { ...serviceEnvFor(cluster, PORTS.app), ...APP_SETTINGS };
  for (const name of [PER_POD, ...SECRET_VARIABLES]) delete env[name];
  return env;
}

export function appEnvConfigMap(cluster: ClusterConfig): ConfigMap {
  return new ConfigMap({ metadata: { name: APP_ENV, labels: labels(APP) }, data: appEnv(cluster) });
}

/** The lab's defaults, as the native cluster and compose use them; change them for anything shared. */
export function credentials(cluster: ClusterConfig): Secret {
  return new Secret({
    metadata: { name: CREDENTIALS, labels: labels(APP) },
    type: 'Opaque',
    stringData: { MYSQL_PASSWORD: cluster.mysql.password, PG_PASSWORD: cluster.postgres.password, MYSQL_ROOT_PASSWORD: `${cluster.mysql.password}-root` },
  });
}

const appEnvSources = {
  envFrom: [{ configMapRef: { name: APP_ENV } }],
  env: [
    { name: PER_POD, valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    ...SECRET_VARIABLES.map((name) => ({ name, valueFrom: { secretKeyRef: { name: CREDENTIALS, key: name } } })),
  ],
};

/** Routes of src/app.ts the probes use; a unit test finds each among the app's routes. */
export const READINESS_PATH = '/health';
export const LIVENESS_PATH = '/noop';

export function app(): Manifest[] {
  const deployment = new Deployment({
    metadata: { name: APP, labels: labels(APP) },
    spec: {
      replicas: REPLICAS,
      selector: { matchLabels: selectorOf(APP) },
      // One instance at a time, none below two serving: the course's three stay (nearly) whole.
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } },
      template: {
        metadata: { labels: labels(APP) },
        spec: {
          terminationGracePeriodSeconds: terminationGraceSeconds(),
          containers: [
            {
              name: APP,
              image: appImage(),
              imagePullPolicy: 'IfNotPresent',
              ...appEnvSources,
              ports: [{ name: 'http', containerPort: PORTS.app }],
              // a first start on a small node: up to a minute.
              startupProbe: { httpGet: { path: LIVENESS_PATH, port: PORTS.app }, periodSeconds: 2, failureThreshold: 30 },
              // /health answers 503 without MySQL: the instance leaves the Service, not the cluster.
              readinessProbe: { httpGet: { path: READINESS_PATH, port: PORTS.app }, periodSeconds: 2, failureThreshold: 2, timeoutSeconds: 2 },
              // /noop needs no dependency: a MySQL outage must not restart every instance.
              livenessProbe: { httpGet: { path: LIVENESS_PATH, port: PORTS.app }, periodSeconds: 5, failureThreshold: 6, timeoutSeconds: 2 },
              lifecycle: { preStop: { exec: { command: ['sleep', String(PRE_STOP_SECONDS)] } } },
              resources: resources('250m', '256Mi', '1', '512Mi'),
            },
          ],
        },
      },
    },
  });
  const pdb = new PodDisruptionBudget({
    metadata: { name: APP, labels: labels(APP) },
    spec: { minAvailable: REPLICAS - 1, selector: { matchLabels: selectorOf(APP) } },
  });
  return [deployment, frontService(APP, APP, [{ name: 'http', port: PORTS.app }]), pdb];
}

/** docker compose's one-shot `migrate`: MySQL's and PostgreSQL's schemas, retried until both servers answer. */
export function migrate(): Job {
  return new Job({
    metadata: { name: `${APP}-migrate`, labels: labels(`${APP}-migrate`) },
    spec: {
      backoffLimit: 20,
      template: {
        metadata: { labels: labels(`${APP}-migrate`) },
        spec: {
          restartPolicy: 'OnFailure',
          containers: [
            {
              name: 'migrate',
              image: appImage(),
              imagePullPolicy: 'IfNotPresent',
              command: ['node', '--import', 'tsx', 'src/db/migrate-cli.ts'],
              ...appEnvSources,
              resources: resources('100m', '128Mi', '1', '512Mi'),
            },
          ],
        },
      },
    },
  });
}

/** nginx's name for itself inside the cluster: a Host the known-host map accepts, beside localhost (port-forward). */
const NGINX_KNOWN_HOST = NGINX;
/** The rendering's placeholder address, swapped for the Service's name in the known-host map. */
const ANY_ADDRESS = '0.0.0.0';
const NGINX_PREFIX = '/var/run/stocklab-nginx';

/** nginx/nginx.conf rendered as the native cluster renders it: every address, one upstream (the Service, which spreads the three instances). */
export function nginxConf(): string {
  const rendered = renderNginxConf(fs.readFileSync(NGINX_TEMPLATE, 'utf8'), PORTS.nginx, [PORTS.app], {
    addresses: { listen: ANY_ADDRESS, upstream: () => `${APP}:${PORTS.app}` },
  });
  const known = new RegExp(`^(\\s*)${ANY_ADDRESS.replaceAll('.', '\\.')}(\\s+1;)$`, 'm');
  if (!known.test(rendered)) throw new Error('nginx: no known-host line for the listen address');
  return rendered.replace(known, (_m, indent: string, rest: string) => `${indent}${NGINX_KNOWN_HOST}${rest}`);
}

export function nginx(): Manifest[] {
  const conf = new ConfigMap({ metadata: { name: 'nginx-conf', labels: labels(NGINX) }, data: { 'nginx.conf': nginxConf() } });
  const deployment = new Deployment({
    metadata: { name: NGINX, labels: labels(NGINX) },
    spec: {
      replicas: 1,
      selector: { matchLabels: selectorOf(NGINX) },
      template: {
        metadata: { labels: labels(NGINX) },
        spec: {
          containers: [
            {
              name: NGINX,
              image: IMAGES.nginx,
              // The native cluster's way: a prefix of its own for the pid, logs and temp folders the conf names.
              command: [
                'sh',
                '-c',
                `mkdir -p ${NGINX_PREFIX}/logs ${NGINX_PREFIX}/temp && exec nginx -p ${NGINX_PREFIX}/ -c /etc/stocklab/nginx.conf -e stderr -g 'daemon off;'`,
              ],
              ports: [{ name: 'http', containerPort: PORTS.nginx }],
              volumeMounts: [
                { name: 'conf', mountPath: '/etc/stocklab' },
                { name: 'prefix', mountPath: NGINX_PREFIX },
              ],
              // Through to an instance; a Host of its known-host map (the kubelet would send the pod's address).
              readinessProbe: {
                httpGet: { path: LIVENESS_PATH, port: PORTS.nginx, httpHeaders: [{ name: 'Host', value: 'localhost' }] },
                periodSeconds: 3,
                failureThreshold: 3,
              },
              livenessProbe: tcpProbe(PORTS.nginx, 5),
              resources: resources('250m', '64Mi', '2', '256Mi'),
            },
          ],
          volumes: [
            { name: 'conf', configMap: { name: 'nginx-conf' } },
            { name: 'prefix', emptyDir: {} },
          ],
        },
      },
    },
  });
  return [conf, deployment, frontService(NGINX, NGINX, [{ name: 'http', port: PORTS.nginx }])];
}
