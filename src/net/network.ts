// The lab's network in one small protocol, as Jepsen's nemesis drives a network: partition (the
// grudge in force), heal, slow (a round trip on the links), fast. The cluster CLI, the fault
// scenarios, the chaos nemesis and the live page all hold one of these; where a cluster cannot do
// one of the four (loopback: nothing to cut; rtt 0 at `up`: no forwarders to slow), that call says why.
import type { Grudge } from './grudge.js';
import type { HostsLayout } from './hosts.js';
import { applyGrudge, grudgeInForce, type PartitionRecord } from './partition.js';

export interface Network {
  /** The hosts layout whose links can be cut; undefined on loopback, where `partition` throws. */
  readonly layout: HostsLayout | undefined;
  /** Makes `grudge` the partition in force, replacing any earlier one (an empty grudge heals). */
  partition(grudge: Grudge): Promise<PartitionRecord>;
  /** Heals every cut link. */
  heal(): Promise<PartitionRecord>;
  /** The partition in force, read back from the namespaces' own rules. */
  inForce(): Promise<Grudge>;
  /** True when the links pass through delaying forwarders; otherwise `slow` throws. */
  readonly delayable: boolean;
  /** The round trip (ms) the links add now: 0 without forwarders. */
  rttMs(): number;
  /** Sets the round trip the links add: every link, or those in front of the named servers. */
  slow(ms: number, links?: readonly string[]): Promise<void>;
  /** Takes every link's added round trip away. */
  fast(): Promise<void>;
}

/** How a cluster's forwarders are retimed (src/cluster/links.ts), and what they add now. */
export interface DelayedLinks {
  rttMs(): number;
  retime(ms: number, names?: readonly string[]): Promise<void>;
}

export interface NetworkParts {
  layout?: HostsLayout | undefined;
  /** Where each partition is appended with its time (`<dir>/partitions.jsonl`); none: not recorded. */
  recordFile?: string | undefined;
  links?: DelayedLinks | undefined;
  /** Why nothing can be cut, when there is no layout (the default names the hosts topology). */
  noCut?: string;
  /** Why nothing can be slowed, when there are no links. */
  noDelay?: string;
}

export const NO_CUT = 'links can be cut only on the hosts topology (a network namespace per server: --topology hosts)';
export const NO_DELAY = 'the links add no round trip: the cluster was brought up without forwarders (bring it up with --rtt MS)';

export function network(parts: NetworkParts): Network {
  const { layout, recordFile, links } = parts;
  const hosts = (): HostsLayout => {
    if (!layout) throw new Error(parts.noCut ?? NO_CUT);
    return layout;
  };
  const delayed = (): DelayedLinks => {
    if (!links) throw new Error(parts.noDelay ?? NO_DELAY);
    return links;
  };
  return {
    layout,
    partition: async (grudge) => applyGrudge(hosts(), grudge, recordFile),
    heal: async () => applyGrudge(hosts(), {}, recordFile),
    inForce: async () => grudgeInForce(hosts()),
    delayable: links !== undefined,
    rttMs: () => links?.rttMs() ?? 0,
    slow: async (ms, names) => delayed().retime(ms, names),
    fast: async () => delayed().retime(0),
  };
}
