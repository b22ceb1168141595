// What `npm run cluster` accepts, apart from the CLI that runs it so it can be read without running it.
import { HELP_FLAG } from '../cli/args.js';

export const CLUSTER_COMMANDS = ['up', 'down', 'status', 'partition', 'heal'] as const;

/** `--topology single|replicated|hosts|hosts,replicated` is TOPOLOGY (src/config.ts parses and checks it). */
export const CLUSTER_FLAGS = {
  topology: { type: 'string' },
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
  partition --shape halves|majorities-ring|bridge|isolate NODES [--seed N]
           Jepsen's shapes over the comma list NODES (isolate: the first node alone)
  heal     hosts topology: every link works again
  --topology single|replicated|hosts|hosts,replicated   the topology (default: TOPOLOGY, else single);
           hosts needs root: each server in a network namespace of its own on a private bridge
  --help   this text
Progress goes to stderr (the Debian packages' installation too), results to stdout.`;
