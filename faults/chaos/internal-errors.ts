// The instances' own word on a run: every answer 500 an instance gave is logged with its error
// (src/http/errors.ts), whoever asked, including the run's own reads and resets, which the checker
// never judges. A run that caused one has found a bug, whatever its answers looked like.
import fs from 'node:fs';
import path from 'node:path';

export interface InternalErrors {
  count: number;
  /** The first such line, cut short: it names the error and its stack. */
  first?: string;
}

/** Lines of the instances' logs (app-<port>.log under `logsDir`) that record an answer 500. */
export function internalErrorsIn(logsDir: string): InternalErrors {
  const files = fs.existsSync(logsDir) ? fs.readdirSync(logsDir).filter((f) => /^app-\d+\.log$/.test(f)) : [];
  const lines = files.flatMap((f) =>
    fs
      .readFileSync(path.join(logsDir, f), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"status":500')),
  );
  return { count: lines.length, ...(lines[0] !== undefined && { first: lines[0].slice(0, 600) }) };
}
