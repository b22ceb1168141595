// What `npm run kubernetes` accepts, apart from the CLI that runs it so it can be read without running it.
import { HELP_FLAG } from '../../src/cli/args.js';

export const KUBERNETES_FLAGS = {
  /** only the base, this overlay (single or replicated) and its experiments */
  overlay: { type: 'string' },
  ...HELP_FLAG,
} as const;
