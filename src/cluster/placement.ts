// Where a server of the cluster runs: loopback in the machine's own network, or, in the hosts
// topology, its own address inside its own network namespace.
import type { ClusterConfig } from './layout.js';
import { LOOPBACK } from './ports.js';

export interface Placement {
  host: string;
  namespace?: string;
}

export const ON_LOOPBACK: Placement = { host: LOOPBACK };

export function placementOf(cluster: Pick<ClusterConfig, 'hosts'>, name: string): Placement {
  const h = cluster.hosts?.hosts.find((x) => x.name === name);
  return h ? { host: h.address, namespace: h.namespace } : ON_LOOPBACK;
}
