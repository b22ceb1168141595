// What `npm run compose` accepts, apart from the CLI that runs it so it can be read without running it.

/** The compose command's own flags (the bench's come after a second --). */
export const COMPOSE_FLAGS = {
  topology: { type: 'string' },
  project: { type: 'string' },
  'free-ports': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;
