// Runs each Lua guard mutant (mutation/lua-mutants.ts): a copy of the script with the mutation
// applied, in a folder LUA_OVERRIDE_DIR points the loader at (src/redis-client/lua.ts), and the
// mutant's tests run against it. Each test selection is run once unmutated first: a selection
// that fails on correct code would "kill" every mutant it is given.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../src/paths.js';
import { LUA_MUTANTS, type LuaMutant, type LuaTests } from './lua-mutants.js';

export interface LuaOutcome {
  mutant: LuaMutant;
  killed: boolean;
  /** The first failing test's full name, when killed. */
  killedBy?: string;
  ms: number;
}

interface VitestRun {
  passed: boolean;
  failed: string[];
  ran: number;
}

interface VitestJson {
  numTotalTests: number;
  testResults: { assertionResults: { fullName: string; status: string }[] }[];
}

/** Runs one test selection, with lua/ overridden by `overrideDir` when given. */
async function runTests(tests: LuaTests, overrideDir: string | undefined): Promise<VitestRun> {
  const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'stocklab-lua-run-')), 'report.json');
  const args = ['vitest', 'run', '--config', 'test/vitest.config.ts', ...tests.files, '--reporter=json', `--outputFile=${out}`];
  // A mutant's run stops at its first failure (that kills it); a baseline must run every test.
  if (overrideDir) args.push('--bail=1');
  if (tests.names) args.push('-t', tests.names);
  const env = { ...process.env, ...(overrideDir && { LUA_OVERRIDE_DIR: overrideDir }) };
  try {
    const code = await new Promise<number>((resolve, reject) => {
      const child = spawn('npx', args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
      child.on('error', reject);
      child.on('exit', (c) => resolve(c ?? 1));
    });
    let report: VitestJson | undefined;
    try {
      report = JSON.parse(readFileSync(out, 'utf8')) as VitestJson;
    } catch {
      report = undefined; // no report: the run failed before any test (a broken setup)
    }
    const results = report?.testResults.flatMap((f) => f.assertionResults) ?? [];
    const ran = results.filter((r) => r.status === 'passed' || r.status === 'failed').length;
    return { passed: code === 0 && ran > 0, failed: results.filter((r) => r.status === 'failed').map((r) => r.fullName), ran };
  } finally {
    rmSync(path.dirname(out), { recursive: true, force: true });
  }
}

/** The script's text with the mutation applied; throws unless `from` occurs exactly once. */
export function mutatedScript(mutant: LuaMutant): string {
  const original = readFileSync(path.join(REPO_ROOT, 'lua', `${mutant.script}.lua`), 'utf8');
  const at = original.indexOf(mutant.from);
  if (at < 0 || original.indexOf(mutant.from, at + 1) >= 0) throw new Error(`lua/${mutant.script}.lua: "${mutant.from}" must occur exactly once`);
  return original.slice(0, at) + mutant.to + original.slice(at + mutant.from.length);
}

const selectionKey = (t: LuaTests): string => `${t.files.join(' ')} -t ${t.names}`;

export async function runLuaMutants(log: (line: string) => void): Promise<LuaOutcome[]> {
  for (const m of LUA_MUTANTS) mutatedScript(m); // every mutation applies, before anything runs
  const selections = new Map(LUA_MUTANTS.map((m) => [selectionKey(m.tests), m.tests]));
  for (const [key, tests] of selections) {
    const base = await runTests(tests, undefined);
    if (!base.passed)
      throw new Error(
        `lua mutants: the selection "${key}" does not pass on unmutated scripts (${base.ran} ran; failed: ${base.failed.join('; ') || 'none reported'})`,
      );
    log(`[lua] baseline green: ${key} (${base.ran} tests)`);
  }
  const outcomes: LuaOutcome[] = [];
  for (const mutant of LUA_MUTANTS) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'stocklab-lua-mutant-'));
    const t0 = Date.now();
    try {
      writeFileSync(path.join(dir, `${mutant.script}.lua`), mutatedScript(mutant));
      const run = await runTests(mutant.tests, dir);
      const killed = !run.passed;
      const outcome: LuaOutcome = { mutant, killed, ms: Date.now() - t0, ...(run.failed[0] !== undefined && { killedBy: run.failed[0] }) };
      outcomes.push(outcome);
      log(
        `[lua] ${mutant.script}: ${mutant.mutation}: ${killed ? `killed by ${outcome.killedBy ?? '(the run failed outside a test)'}` : 'SURVIVED'} (${Math.round(outcome.ms / 1000)} s)`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return outcomes;
}

export function luaTable(outcomes: readonly LuaOutcome[]): string {
  const rows = outcomes.map(
    (o) => `| ${o.mutant.script}.lua | ${o.mutant.mutation} | ${o.killed ? 'killed' : '**survived**'} | ${o.killedBy ?? '—'} | ${Math.round(o.ms / 1000)} s |`,
  );
  return ['| script | mutation | result | killed by | time |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}
