// The forwarder process's command line (src/net/forwarder-args.ts), read without starting anything.
import { describe, expect, it } from 'vitest';
import { HelpRequested, UsageError } from '../../src/cli/args.js';
import { parseEndpoint, parseForwarderArgs, parseRttMs } from '../../src/net/forwarder-args.js';

describe('parseForwarderArgs', () => {
  it('reads --listen, --target and --rtt, in any order and either form', () => {
    expect(parseForwarderArgs(['--rtt=0.5', '--target', '127.0.0.1:3306', '--listen', '127.0.0.1:0'])).toEqual({
      listen: { host: '127.0.0.1', port: 0 },
      target: { host: '127.0.0.1', port: 3306 },
      rttMs: 0.5,
      rttFile: undefined,
    });
  });

  it('defaults to no delay, and takes --rtt-file instead of --rtt', () => {
    const args = parseForwarderArgs(['--listen', 'localhost:7000', '--target', '[::1]:6379', '--rtt-file', '/tmp/rtt']);
    expect(args).toEqual({ listen: { host: 'localhost', port: 7000 }, target: { host: '::1', port: 6379 }, rttMs: 0, rttFile: '/tmp/rtt' });
    expect(parseForwarderArgs(['--listen', 'a:1', '--target', 'b:2']).rttMs).toBe(0);
  });

  it.each([
    [['--target', 'a:1'], /--listen is required/],
    [['--listen', 'a:1'], /--target is required/],
    [['--listen', 'a', '--target', 'b:2'], /--listen must be HOST:PORT/],
    [['--listen', 'a:1', '--target', 'b:0'], /--target must be HOST:PORT with a port from 1/],
    [['--listen', 'a:70000', '--target', 'b:2'], /--listen must be HOST:PORT/],
    [['--listen', 'a:1', '--target', 'b:2', '--rtt=-1'], /--rtt: expected a number of ms ≥ 0, got "-1"/],
    [['--listen', 'a:1', '--target', 'b:2', '--rtt'], /--rtt/],
    [['--listen', 'a:1', '--target', 'b:2', '--rtt', 'fast'], /--rtt: expected a number/],
    [['--listen', 'a:1', '--target', 'b:2', '--rtt', '1', '--rtt-file', 'f'], /not both/],
    [['--listen', 'a:1', '--target', 'b:2', '--delay', '1'], /unknown flag --delay/],
  ])('refuses %j, naming the flag', (argv, message) => {
    expect(() => parseForwarderArgs(argv)).toThrow(UsageError);
    expect(() => parseForwarderArgs(argv)).toThrow(message);
  });

  it('asks for the usage on --help', () => {
    expect(() => parseForwarderArgs(['--help'])).toThrow(HelpRequested);
  });
});

describe('parseEndpoint and parseRttMs', () => {
  it('reads an IPv6 host in brackets and a round trip with spaces around it', () => {
    expect(parseEndpoint('[::1]:0', '--listen', true)).toEqual({ host: '::1', port: 0 });
    expect(parseRttMs(' 2.5\n', 'the file')).toBe(2.5);
    expect(() => parseRttMs('', 'the file')).toThrow(/the file: expected/);
    expect(() => parseRttMs('Infinity', 'the file')).toThrow(/expected/);
  });
});
