// The kustomize tree: a base every topology shares and one overlay per topology, file by file, as
// objects. render.ts (faults/kubernetes) writes them; the unit tests read them from here.
import { app, appEnvConfigMap, credentials, migrate, nginx } from './app.js';
import type { Manifest } from './objects.js';
import { etcd, mysql, postgres, redis, redisReplica, redlock, sentinels, zookeeper } from './servers.js';
import { kubernetesCluster, type Overlay } from './topology.js';

export interface Kustomization {
  apiVersion: 'kustomize.config.k8s.io/v1beta1';
  kind: 'Kustomization';
  resources: string[];
}

/** One file of deploy/kubernetes/: its path there and what it holds. */
export interface ManifestFile {
  path: string;
  objects: Manifest[];
}

const kustomization = (resources: string[]): Kustomization => ({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources });

/** What no topology changes: the service, nginx, the migration, MySQL, PostgreSQL, the main Redis and RedLock's masters. */
export function baseFiles(): ManifestFile[] {
  const cluster = kubernetesCluster('single');
  return [
    { path: 'base/credentials.yaml', objects: [credentials(cluster)] },
    { path: 'base/app.yaml', objects: app() },
    { path: 'base/migrate.yaml', objects: [migrate()] },
    { path: 'base/nginx.yaml', objects: nginx() },
    { path: 'base/mysql.yaml', objects: mysql(cluster) },
    { path: 'base/postgres.yaml', objects: postgres(cluster) },
    { path: 'base/redis.yaml', objects: redis(cluster) },
    { path: 'base/redlock.yaml', objects: redlock(cluster) },
  ];
}

/** A topology's own part: the instances' environment, ZooKeeper and etcd (one, or three), and, replicated, Sentinel with a replica. */
export function overlayFiles(overlay: Overlay): ManifestFile[] {
  const cluster = kubernetesCluster(overlay);
  const dir = `overlays/${overlay}`;
  return [
    { path: `${dir}/app-env.yaml`, objects: [appEnvConfigMap(cluster)] },
    { path: `${dir}/zookeeper.yaml`, objects: zookeeper(cluster) },
    { path: `${dir}/etcd.yaml`, objects: etcd(cluster) },
    ...(overlay === 'replicated'
      ? [
          { path: `${dir}/redis-replica.yaml`, objects: redisReplica(cluster) },
          { path: `${dir}/sentinel.yaml`, objects: sentinels(cluster) },
        ]
      : []),
  ];
}

export function baseKustomization(): Kustomization {
  return kustomization(baseFiles().map((f) => f.path.replace(/^base\//, '')));
}

export function overlayKustomization(overlay: Overlay): Kustomization {
  return kustomization(['../../base', ...overlayFiles(overlay).map((f) => f.path.replace(`overlays/${overlay}/`, ''))]);
}

/** Every object a topology applies (`kubectl apply -k overlays/<overlay>`): the base's and its overlay's. */
export function topologyObjects(overlay: Overlay): Manifest[] {
  return [...baseFiles(), ...overlayFiles(overlay)].flatMap((f) => f.objects);
}
