// The Kubernetes objects the manifests hold, built with kubernetes-models' classes so each is typed
// as Kubernetes' own schema, and small builders for what every server shares: its labels, its
// headless Service, a container's resources. Nothing here knows a particular server.
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import type { IContainer, IPodSpec, IProbe, IResourceRequirements } from 'kubernetes-models/v1';

export type Manifest = Deployment | StatefulSet | Service | ConfigMap | Secret | Job | PodDisruptionBudget;

/** The label every object of the lab carries, and the one that names its part. */
export const PART_LABEL = 'app.kubernetes.io/name';
export const LAB_LABEL = 'app.kubernetes.io/part-of';
export const LAB = 'stocklab';

export const labels = (part: string): Record<string, string> => ({ [PART_LABEL]: part, [LAB_LABEL]: LAB });
export const selectorOf = (part: string): Record<string, string> => ({ [PART_LABEL]: part });

/** CPU and memory, asked for and capped: a lab server is small, and must not starve the instances. */
export function resources(cpu: string, memory: string, cpuLimit: string, memoryLimit: string): IResourceRequirements {
  return { requests: { cpu, memory }, limits: { cpu: cpuLimit, memory: memoryLimit } };
}

/** A TCP check on a port: what a server without an HTTP health route offers. */
export function tcpProbe(port: number, periodSeconds = 5, failureThreshold = 6): IProbe {
  return { tcpSocket: { port }, periodSeconds, failureThreshold, timeoutSeconds: 2 };
}

/** A command run in the container; 0 is ready. */
export function execProbe(command: string[], periodSeconds = 5, failureThreshold = 6): IProbe {
  return { exec: { command }, periodSeconds, failureThreshold, timeoutSeconds: 3 };
}

/** The pod's own name, for a server that names itself after it (etcd's --name, an instance's id). */
export const POD_NAME_ENV = { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } };

export interface ServerSet {
  name: string;
  replicas: number;
  container: IContainer;
  /** Where its data lives; an emptyDir: the lab's servers keep nothing across a pod's life, as the native ones keep nothing across `down`. */
  dataPath?: string;
  pod?: Partial<IPodSpec>;
}

/**
 * A server as a StatefulSet: stable pod names (`redlock-3`) that the chaos experiments and the
 * ensembles' peer lists name, and a headless Service that gives each pod a DNS name. Pods are
 * published before they are ready, for an ensemble must resolve its peers to form at all.
 */
export function serverSet(s: ServerSet): [StatefulSet, Service] {
  const volumes = s.dataPath ? [{ name: 'data', emptyDir: {} }] : [];
  const container: IContainer = {
    ...s.container,
    ...(s.dataPath && { volumeMounts: [...(s.container.volumeMounts ?? []), { name: 'data', mountPath: s.dataPath }] }),
  };
  const set = new StatefulSet({
    metadata: { name: s.name, labels: labels(s.name) },
    spec: {
      serviceName: s.name,
      replicas: s.replicas,
      // Every member at once: an ensemble waits for its peers, one at a time would wait forever.
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: selectorOf(s.name) },
      template: {
        metadata: { labels: labels(s.name) },
        spec: { ...s.pod, containers: [container, ...(s.pod?.containers ?? [])], volumes: [...volumes, ...(s.pod?.volumes ?? [])] },
      },
    },
  });
  const ports = (s.container.ports ?? []).map((p) => ({ name: p.name, port: p.containerPort, targetPort: p.containerPort }));
  const service = new Service({
    metadata: { name: s.name, labels: labels(s.name) },
    spec: { clusterIP: 'None', publishNotReadyAddresses: true, selector: selectorOf(s.name), ports },
  });
  return [set, service];
}

/** A ClusterIP Service in front of a part's pods, on the ports its container exposes. */
export function frontService(name: string, part: string, ports: { name: string; port: number }[]): Service {
  return new Service({
    metadata: { name, labels: labels(part) },
    spec: { selector: selectorOf(part), ports: ports.map((p) => ({ name: p.name, port: p.port, targetPort: p.port })) },
  });
}

export { ConfigMap, Deployment, Job, PodDisruptionBudget, Secret, Service, StatefulSet };
