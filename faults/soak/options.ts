// `npm run soak` flags, apart from the CLI so the docs test can read them without running it.
export const SOAK_FLAGS = {
  minutes: { type: 'string', default: '10' },
  strategies: { type: 'string', multiple: true },
  'sample-seconds': { type: 'string', default: '10' },
  out: { type: 'string', default: 'faults/results' },
} as const;
