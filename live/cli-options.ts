// `npm run live`'s flags, apart from the CLI so the docs test can read them without running it.
export const LIVE_FLAGS = ['topology', 'port'] as const;
export const LIVE_USAGE = 'usage: npm run live [-- --topology single|replicated] [--port N]';
