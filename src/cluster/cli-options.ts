// What `npm run cluster` accepts, apart from the CLI that runs it so it can be read without running it.
import { HELP_FLAG } from '../cli/args.js';

export const CLUSTER_COMMANDS = ['up', 'down', 'status', 'partition', 'heal', 'rtt'] as const;

/** `--topology single|replicated|hosts|hosts,replicated` is TOPOLOGY (src/config.ts parses and checks it). */
export const CLUSTER_FLAGS = {
  topology: { type: 'string' },
  rtt: { type: 'string' },
  link: { type: 'string' },
  'one-way': { type: 'boolean' },
  shape: { type: 'string' },
  seed: { type: 'string' },
  ...HELP_FLAG,
} as const;

export const CLUSTER_USAGE = `usage: npm run cluster -- ${CLUSTER_COMMANDS.join('|')} [options]
  up       start the native cluster (detached) or keep the one running; its addresses go to stdout
  down     stop every server it recorded (and, hosts topology, remove its namespaces, links and rules)
  status   each server's state (exit 3 when not everything is up)
  partition A B [--one-way]   hosts topology: cut the servers of group A from those of group B
           (groups are comma lists: app-0,redis; app-0… are the instances in order). Both ways,
           or --one-way: what A sends no longer reaches B. Replaces any partition in force.
  partition --shape halves|majorities-ring|bridge|isolate|one-way NODES [--seed N]
           Jepsen's shapes over the comma list NODES (isolate: the first node alone;
           one-way: a random halving, cut one way)
  heal     hosts topology: every link works again
  rtt MS [--link a,b]   the round trip the running cluster's links add, changed in place (ms,
           half each way): every link's, or with --link only those in front of these servers
           (redlock-4: one master far away; zookeeper-1-peer: a quorum port). Only for a cluster
           brought up with --rtt above 0 (at 0 it has no forwarders to retime)
  --rtt MS with up: a delaying forwarder in front of every server (MySQL, Redis, the RedLock masters,
           ZooKeeper and its quorum ports, the Sentinels and the replica's link, each instance
           behind nginx), adding MS of round trip, half each way (default: CLUSTER_RTT_MS, else 0: none)
  --topology single|replicated|hosts|hosts,replicated   the topology (default: TOPOLOGY, else single);
           hosts needs root: each server in a network namespace of its own on a private bridge
  --help   this text
Progress goes to stderr (the Debian packages' installation too), results to stdout.`;
