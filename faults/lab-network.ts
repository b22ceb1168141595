// The hosts topology as the partition scenarios use it: the lab cluster's network (src/net's one
// protocol), each cut and heal recorded with its time in the run's partitions.jsonl, as the cluster
// CLI and the live page record theirs, so a run's history lines cuts up with holds.
import { partitionLog } from '../src/cluster/partitions.js';
import type { HostsLayout } from '../src/net/hosts.js';
import { network, type Network } from '../src/net/network.js';
import type { FaultContext } from './scenario.js';

/** A network whose links can be cut: its layout is there. */
export type LabNetwork = Network & { readonly layout: HostsLayout };

/** The lab cluster's network; throws, naming the scenario, when the cluster is not on the hosts topology. */
export function labNetwork(ctx: FaultContext, scenario: string): LabNetwork {
  const layout = ctx.cluster.layout;
  if (!layout) throw new Error(`${scenario} needs the hosts topology (a network namespace per server)`);
  return { ...network({ layout, recordFile: partitionLog(ctx.workDir) }), layout };
}
