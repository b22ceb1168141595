// What `npm run cluster` accepts, apart from the CLI that runs it so it can be read without running it.

export const CLUSTER_COMMANDS = ['up', 'down', 'status'] as const;

/** `--topology single|replicated` is TOPOLOGY (src/config.ts parses and checks it). */
export const CLUSTER_FLAGS = ['topology'] as const;

export const CLUSTER_USAGE = `usage: npm run cluster -- ${CLUSTER_COMMANDS.join('|')} [--topology single|replicated]`;
