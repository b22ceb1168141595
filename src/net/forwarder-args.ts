// The forwarder process's command line, read without side effects so it can be tested:
// --listen HOST:PORT --target HOST:PORT [--rtt MS | --rtt-file PATH].
import { HELP_FLAG, parseFlags, UsageError } from '../cli/args.js';
import type { Endpoint } from './forwarder.js';

export const FORWARDER_USAGE = `usage: node --import tsx src/net/forwarder-main.ts --listen HOST:PORT --target HOST:PORT [--rtt MS | --rtt-file PATH]
  --listen HOST:PORT   where to listen (port 0: any free port)
  --target HOST:PORT   where to forward to
  --rtt MS             the round trip to add, half each way (default 0: no delay at all)
  --rtt-file PATH      read the round trip from this file at start and again on SIGHUP`;

export interface ForwarderArgs {
  listen: Endpoint;
  target: Endpoint;
  rttMs: number;
  rttFile: string | undefined;
}

const FLAGS = {
  ...HELP_FLAG,
  listen: { type: 'string' },
  target: { type: 'string' },
  rtt: { type: 'string' },
  'rtt-file': { type: 'string' },
} as const;

/** HOST:PORT, with an IPv6 host in brackets ([::1]:3306). */
export function parseEndpoint(raw: string, flag: string, allowPortZero: boolean): Endpoint {
  const match = /^(?:\[([^\]]+)\]|([^:\s]+)):(\d{1,5})$/.exec(raw);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  const lowest = allowPortZero ? 0 : 1;
  if (host === undefined || !Number.isInteger(port) || port < lowest || port > 65535) {
    throw new UsageError(`${flag} must be HOST:PORT with a port from ${lowest} to 65535, got "${raw}"`);
  }
  return { host, port };
}

/** A round trip in ms: a finite number ≥ 0. `what` names where it came from, for the message. */
export function parseRttMs(raw: string, what: string): number {
  const text = raw.trim();
  const ms = Number(text);
  if (text === '' || !Number.isFinite(ms) || ms < 0) throw new UsageError(`${what}: expected a number of ms ≥ 0, got "${text}"`);
  return ms;
}

/** Throws HelpRequested for --help and UsageError, naming the flag, for anything else wrong. */
export function parseForwarderArgs(argv: readonly string[]): ForwarderArgs {
  const { values } = parseFlags(argv, FLAGS);
  if (values.listen === undefined) throw new UsageError('--listen is required');
  if (values.target === undefined) throw new UsageError('--target is required');
  if (values.rtt !== undefined && values['rtt-file'] !== undefined) throw new UsageError('give --rtt or --rtt-file, not both');
  if (values['rtt-file'] === '') throw new UsageError('--rtt-file must name a file');
  return {
    listen: parseEndpoint(values.listen, '--listen', true),
    target: parseEndpoint(values.target, '--target', false),
    rttMs: values.rtt === undefined ? 0 : parseRttMs(values.rtt, '--rtt'),
    rttFile: values['rtt-file'],
  };
}
