// What `npm run cluster` accepts, apart from the CLI that runs it so it can be read without running it.
import { HELP_FLAG } from '../cli/args.js';

export const CLUSTER_COMMANDS = ['up', 'down', 'status'] as const;

/** `--topology single|replicated` is TOPOLOGY (src/config.ts parses and checks it). */
export const CLUSTER_FLAGS = { topology: { type: 'string' }, ...HELP_FLAG } as const;

export const CLUSTER_USAGE = `usage: npm run cluster -- ${CLUSTER_COMMANDS.join('|')} [--topology single|replicated]
  up       start the native cluster (detached) or keep the one running; its addresses go to stdout
  down     stop every server it recorded
  status   each server's state (exit 3 when not everything is up)
  --topology single|replicated   the topology (default: TOPOLOGY, else single)
  --help   this text
Progress goes to stderr (the Debian packages' installation too), results to stdout.`;
