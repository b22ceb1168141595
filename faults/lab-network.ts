// The hosts topology as the partition scenarios use it: the lab cluster's layout, and each cut and
// heal recorded with its time in the run's partitions.jsonl (partitionLog, as the cluster CLI and
// the live page record theirs), so a run's history lines cuts up with holds.
import { partitionLog } from '../src/cluster/partitions.js';
import type { Grudge } from '../src/net/grudge.js';
import type { HostsLayout } from '../src/net/hosts.js';
import { applyGrudge, healAll, type PartitionRecord } from '../src/net/partition.js';
import type { FaultContext } from './scenario.js';

export interface LabNetwork {
  layout: HostsLayout;
  /** Makes `grudge` the partition in force (replacing any earlier one), recorded. */
  partition(grudge: Grudge): Promise<PartitionRecord>;
  /** Heals every link, recorded. */
  heal(): Promise<PartitionRecord>;
}

/** The lab cluster's network; throws, naming the scenario, when the cluster is not on the hosts topology. */
export function labNetwork(ctx: FaultContext, scenario: string): LabNetwork {
  const layout = ctx.cluster.layout;
  if (!layout) throw new Error(`${scenario} needs the hosts topology (a network namespace per server)`);
  const record = partitionLog(ctx.workDir);
  return { layout, partition: (grudge) => applyGrudge(layout, grudge, record), heal: () => healAll(layout, record) };
}
