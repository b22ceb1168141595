// `npm run live`'s flags, apart from the CLI so the docs test can read them without running it.
import { HELP_FLAG } from '../src/cli/args.js';

export const LIVE_FLAGS = { topology: { type: 'string' }, port: { type: 'string' }, rtt: { type: 'string' }, ...HELP_FLAG } as const;
export const LIVE_USAGE = 'usage: npm run live [-- --topology single|replicated|hosts|hosts,replicated] [--port N] [--rtt MS]';
