// Every command line is read the same way (src/cli/args.ts): --flag value and --flag=value in any
// order, an unknown flag named, --help → usage on stdout and exit 0. The CLIs themselves are run
// for --help and for a wrong flag (both end before anything starts).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BENCH_FLAGS, LAB_FLAGS, parseBenchArgs } from '../../bench/options.js';
import { parseFaultArgs } from '../../faults/options.js';
import { HelpRequested, parseFlags, UsageError } from '../../src/cli/args.js';
import { CLUSTER_FLAGS } from '../../src/cluster/cli-options.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('parseFlags', () => {
  it('takes --flag value and --flag=value, in any order', () => {
    const a = parseBenchArgs(['--rounds', '2', '--strategies=none,mutex', '--window=0.5', '--full']);
    const b = parseBenchArgs(['--full', '--window', '0.5', '--strategies', 'none,mutex', '--rounds=2']);
    expect(a).toEqual(b);
    expect(a).toMatchObject({ rounds: 2, windowSeconds: 0.5, strategies: ['none', 'mutex'] });
    const { values } = parseFlags(['--stop', '--rounds=4'], { ...BENCH_FLAGS, ...LAB_FLAGS });
    expect(values).toMatchObject({ stop: true, rounds: '4' });
    expect(parseFaultArgs(['--strategy=redis-hash', '--sell', '5']).sizes.sell).toBe(5);
    // a family's name runs its whole family
    expect(parseFaultArgs(['--scenario', 'partition']).scenarios).toEqual(['partition', 'nginx-cut', 'zk-leader-partition', 'redis-split-brain']);
    expect(parseFaultArgs(['--scenario', 'zk-leader-partition']).scenarios).toEqual(['zk-leader-partition']);
    // the incident gallery runs alone, on a cluster of its own
    expect(parseFaultArgs(['--scenario', 'incidents'])).toMatchObject({ incidents: true, scenarios: [] });
    expect(parseFaultArgs(['--scenario', 'holder-pause']).incidents).toBeUndefined();
    expect(() => parseFaultArgs(['--scenario', 'incidents,holder-pause'])).toThrow(new UsageError('--scenario incidents runs alone'));
    expect(() => parseFaultArgs(['--scenario', 'incidents', '--chaos'])).toThrow(new UsageError('--scenario incidents runs alone'));
  });

  it('names an unknown flag, and an unexpected argument', () => {
    expect(() => parseBenchArgs(['--rounds', '2', '--bogus=1'])).toThrow(new UsageError('unknown flag --bogus'));
    expect(() => parseFaultArgs(['--scenarios', 'x'])).toThrow(new UsageError('unknown flag --scenarios'));
    expect(() => parseFlags(['-x'], CLUSTER_FLAGS, true)).toThrow(new UsageError('unknown flag -x'));
    expect(() => parseBenchArgs(['stray'])).toThrow(new UsageError('unexpected argument "stray"'));
    expect(() => parseBenchArgs(['--rounds'])).toThrow(UsageError);
  });

  it('turns --help and -h into HelpRequested, whatever else is given', () => {
    expect(() => parseBenchArgs(['--rounds', '2', '--help'])).toThrow(HelpRequested);
    expect(() => parseFlags(['up', '-h'], CLUSTER_FLAGS, true)).toThrow(HelpRequested);
    expect(() => parseFaultArgs(['--help'])).toThrow(HelpRequested);
  });
});

const run = promisify(execFile);
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const CLIS: [string, string[]][] = [
  ['bench/run.ts', []],
  ['bench/lab.ts', []],
  ['faults/run.ts', []],
  ['src/cluster/cli.ts', ['status']],
  ['compose/cli.ts', ['up']],
];

async function exec(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    // Ten tsx processes start at once, each compiling its imports: on a busy 2-core machine one took
    // past 30 s and was killed (exit 143). The bound is for a hang, not for speed.
    const r = await run(TSX, [file, ...args], { cwd: ROOT, timeout: 100_000 });
    return { code: 0, ...r };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('the CLIs', () => {
  it('print their usage on stdout for --help and exit 0; name an unknown flag on stderr and exit 2', async () => {
    const results = await Promise.all(
      CLIS.map(async ([file, args]) => ({
        file,
        help: await exec(file, [...args, '--help']),
        bad: await exec(file, ['--nonsense=1', ...args]),
      })),
    );
    for (const { file, help, bad } of results) {
      expect({ file, code: help.code, usage: help.stdout.startsWith('usage: npm run ') }).toEqual({ file, code: 0, usage: true });
      expect({ file, code: bad.code, stdout: bad.stdout }).toEqual({ file, code: 2, stdout: '' });
      expect(bad.stderr).toContain('unknown flag --nonsense');
    }
  }, 150_000);
});
