// npm run mutation's flags, read by its CLI and by the docs test (which checks what the docs pass).
import { HELP_FLAG } from '../src/cli/args.js';

export const MUTATION_FLAGS = { ...HELP_FLAG, group: { type: 'string' }, all: { type: 'boolean' }, incremental: { type: 'boolean' } } as const;
