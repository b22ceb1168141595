// What `npm run compose` accepts, apart from the CLI that runs it so it can be read without running it.
import { HELP_FLAG } from '../cli/args.js';

/** The compose command's own flags (the bench's come after a second --). */
export const COMPOSE_FLAGS = {
  topology: { type: 'string' },
  project: { type: 'string' },
  'free-ports': { type: 'boolean' },
  /** up: build stand-ins for the images the engine lacks (Debian packages), asking no registry */
  'stand-ins': { type: 'boolean' },
  /** an optional profile of docker-compose.yml: metrics (Prometheus), live (the live lab's page) */
  profile: { type: 'string', multiple: true },
  ...HELP_FLAG,
} as const;
