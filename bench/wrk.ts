// wrk (a C load generator, Debian package `wrk`) as the reference for the bench's own ceiling: if
// autocannon reached much less than wrk on GET /noop, the bench, not the service, would be the limit.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { findExecutable } from '../src/cluster/packages.js';

const run = promisify(execFile);

export function wrkPath(): string | undefined {
  return findExecutable(['wrk']);
}

/** Requests per second wrk sustains against `url` for `seconds` with `connections` over two threads. */
export async function wrkRate(wrk: string, url: string, connections: number, seconds: number): Promise<number> {
  const duration = `${Math.max(1, Math.round(seconds))}s`;
  const { stdout } = await run(wrk, ['-t2', `-c${connections}`, `-d${duration}`, '--timeout', '10s', url], { timeout: (seconds + 30) * 1000 });
  const rate = /Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1];
  if (!rate) throw new Error(`wrk printed no rate:\n${stdout}`);
  return Number(rate);
}
