// One group's StrykerJS run (stryker.config.json, its `mutate` set from the group), and its
// results counted per module for docs/mutation.md.
import { Stryker } from '@stryker-mutator/core';
import type { MutantResult } from '@stryker-mutator/api/core';
import type { MutationGroup } from './groups.js';

export const REPORTS_DIR = 'reports/mutation';

export interface GroupRun {
  group: string;
  results: MutantResult[];
  ms: number;
}

export async function runGroup(group: MutationGroup, incremental: boolean): Promise<GroupRun> {
  const dir = `${REPORTS_DIR}/${group.name}`;
  const t0 = Date.now();
  // Read by test/vitest.mutation.config.ts in Stryker's test runner processes, which inherit it.
  process.env.STOCKLAB_MUTATION_TESTS = group.tests.join(',');
  const results = await new Stryker({
    configFile: 'stryker.config.json',
    mutate: [...group.mutate],
    htmlReporter: { fileName: `${dir}/index.html` },
    jsonReporter: { fileName: `${dir}/report.json` },
    incremental,
    incrementalFile: `${dir}/incremental.json`,
  }).runMutationTest();
  return { group: group.name, results, ms: Date.now() - t0 };
}

/** Ignored with a reason given in a `// Stryker disable` comment: an equivalent mutant. */
const isEquivalent = (m: MutantResult): boolean => m.status === 'Ignored' && !m.static;

interface Counts {
  mutants: number;
  killed: number;
  survived: number;
  noCoverage: number;
  timeout: number;
  equivalent: number;
  ignoredStatic: number;
  compileError: number;
}

function count(results: readonly MutantResult[]): Counts {
  const is = (s: MutantResult['status']) => results.filter((m) => m.status === s).length;
  return {
    mutants: results.length,
    killed: is('Killed'),
    survived: is('Survived'),
    noCoverage: is('NoCoverage'),
    timeout: is('Timeout'),
    equivalent: results.filter(isEquivalent).length,
    ignoredStatic: results.filter((m) => m.status === 'Ignored' && m.static).length,
    compileError: is('CompileError') + is('RuntimeError'),
  };
}

/** Killed or timed out, out of everything not equivalent, not static and compiling: the score. */
function score(c: Counts): string {
  const valid = c.killed + c.timeout + c.survived + c.noCoverage;
  return valid === 0 ? '—' : `${((100 * (c.killed + c.timeout)) / valid).toFixed(1)} %`;
}

export function groupTable(run: GroupRun): string {
  const byFile = new Map<string, MutantResult[]>();
  for (const m of run.results) byFile.set(m.fileName, [...(byFile.get(m.fileName) ?? []), m]);
  const row = (name: string, c: Counts) =>
    `| ${name} | ${c.mutants} | ${c.killed} | ${c.survived} | ${c.noCoverage} | ${c.timeout} | ${c.equivalent} | ${c.ignoredStatic} | ${c.compileError} | ${score(c)} |`;
  const cwd = process.cwd() + '/';
  return [
    '| module | mutants | killed | survived | no coverage | timed out | equivalent | static (not run) | compile error | score |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...[...byFile.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([file, ms]) => row(file.replace(cwd, ''), count(ms))),
    row(`**${run.group}** (${Math.round(run.ms / 1000)} s)`, count(run.results)),
  ].join('\n');
}

/** Every mutant that survived or no test reached, one line each, for the note's survivor list. */
export function survivorLines(run: GroupRun): string[] {
  const cwd = process.cwd() + '/';
  return run.results
    .filter((m) => m.status === 'Survived' || m.status === 'NoCoverage')
    .map(
      (m) =>
        `- ${m.status}: ${m.fileName.replace(cwd, '')}:${m.location.start.line} ${m.mutatorName} → \`${(m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 80)}\``,
    );
}

export function equivalentLines(run: GroupRun): string[] {
  const cwd = process.cwd() + '/';
  return run.results.filter(isEquivalent).map((m) => `- ${m.fileName.replace(cwd, '')}:${m.location.start.line} ${m.mutatorName}: ${m.statusReason ?? ''}`);
}
