// `npm run soak` flags, apart from the CLI so the docs test can read them without running it.
import { HELP_FLAG, LANG_FLAG } from '../../src/cli/args.js';

export const SOAK_FLAGS = {
  ...HELP_FLAG,
  ...LANG_FLAG,
  minutes: { type: 'string', default: '10' },
  strategies: { type: 'string', multiple: true },
  'sample-seconds': { type: 'string', default: '10' },
  out: { type: 'string', default: 'faults/results' },
} as const;
