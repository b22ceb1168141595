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

describe('the edges of what the forwarder accepts', () => {
  it('ports: 0 to listen on (any free port) but not to target; 1 and 65535 either way; 65536 neither', () => {
    expect(parseEndpoint('a:0', '--listen', true)).toEqual({ host: 'a', port: 0 });
    expect(() => parseEndpoint('a:0', '--target', false)).toThrow('--target must be HOST:PORT with a port from 1 to 65535, got "a:0"');
    for (const [flag, zero] of [
      ['--listen', true],
      ['--target', false],
    ] as const) {
      expect(parseEndpoint('a:1', flag, zero)).toEqual({ host: 'a', port: 1 });
      expect(parseEndpoint('a:65535', flag, zero)).toEqual({ host: 'a', port: 65535 });
      expect(() => parseEndpoint('a:65536', flag, zero)).toThrow(`${flag} must be HOST:PORT with a port from ${zero ? 0 : 1} to 65535, got "a:65536"`);
    }
  });

  it('refuses a host with a space or a colon outside brackets, a port of six digits, and trailing text', () => {
    for (const raw of ['a b:1', '::1:80', 'a:123456', 'a:80x', 'x a:80', ':80']) expect(() => parseEndpoint(raw, '--target', false), raw).toThrow(UsageError);
  });

  it('an rtt of 0 is no delay, accepted from the flag and from a file', () => {
    expect(parseForwarderArgs(['--listen', 'a:1', '--target', 'b:2', '--rtt', '0']).rttMs).toBe(0);
    expect(parseRttMs('0', 'the file')).toBe(0);
    expect(() => parseRttMs('-0.001', 'the file')).toThrow('the file: expected a number of ms ≥ 0, got "-0.001"');
  });

  it('refuses a file of blanks (an rtt file emptied), which Number() would read as 0', () => {
    expect(() => parseRttMs('  \n', 'the file')).toThrow('the file: expected a number of ms ≥ 0, got ""');
  });

  it('refuses an empty --rtt-file', () => {
    expect(() => parseForwarderArgs(['--listen', 'a:1', '--target', 'b:2', '--rtt-file='])).toThrow('--rtt-file must name a file');
  });
});
