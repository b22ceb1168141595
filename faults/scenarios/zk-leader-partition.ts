// zk-leader-partition: the ensemble's leader cut off from the other two nodes (the hosts topology),
// while deductions run under a ZooKeeper lock. The instances still reach every node: the sessions on
// the old leader are dropped when it loses its quorum and move to the majority, which elects a new
// leader. Exact throughout; the time until sales resume is the figure. Healed after.
import { isolate } from '../../src/net/grudge.js';
import { labNetwork } from '../lab-network.js';
import { labLocksOf } from '../locks.js';
import type { FaultRow } from '../row.js';
import type { FaultContext, Scenario } from '../scenario.js';
import { leaderFaultCase, type LeaderFault } from './zk-leader-loss.js';

/**
 * Sales again within this after the cut. Longer than after a kill (zk-leader-loss, 15 s): a cut
 * drops packets, so the others' connection attempts to the old leader hang rather than fail at once,
 * and the cut leader serves on until it notices it lost its quorum. Measured on a loaded 2-core
 * machine: 3 to 14 s, once past 15 s.
 */
const RECOVER_BOUND_MS = 30_000;

function isolatedLeader(ctx: FaultContext): LeaderFault {
  const net = labNetwork(ctx, 'zk-leader-partition');
  const nodes = ctx.cluster.servers.zookeeperEnsemble.map((s) => s.name);
  return {
    scenario: 'zk-leader-partition',
    variant: '3-node ensemble, leader cut off from the others',
    done: 'cut off from the other two nodes',
    inflict: async (leader) => void (await net.partition(isolate(nodes, leader.name))),
    undo: async () => void (await net.heal()),
    recoverBoundMs: RECOVER_BOUND_MS,
  };
}

export const zkLeaderPartition: Scenario = {
  name: 'zk-leader-partition',
  topology: 'hosts,replicated',
  family: 'partition',
  description:
    'The hosts topology with a three-node ensemble. Clients send deductions through the three instances, whose sessions span the ensemble; once sales flow, the leader is cut off from the ' +
    `other two nodes (iptables DROP both ways; the instances still reach all three). The leader loses its quorum and drops its clients, who move their sessions to the majority once it has elected a new leader. ` +
    `Sold must equal deducted exactly throughout; "recover" is the time from the cut to the first sale of a request sent after it (bound ${RECOVER_BOUND_MS / 1000} s). Healed after.`,
  async run(ctx) {
    const rows: FaultRow[] = [];
    for (const strategy of (await labLocksOf(ctx.cluster)).zk.filter(ctx.wants)) rows.push(await leaderFaultCase(ctx, strategy, isolatedLeader(ctx)));
    return rows;
  },
};
