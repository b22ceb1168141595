// npm run mutation [-- --group core,lua | --all] [--incremental]: StrykerJS over the code that
// carries a safety or liveness promise, one group at a time, then one mutant per Lua script guard.
// Prints each group's table and writes it, with the survivors, to reports/mutation/summary-<groups>.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseFlags, runCli, UsageError } from '../src/cli/args.js';
import { REPO_ROOT } from '../src/paths.js';
import { ALL_GROUPS, DEFAULT_GROUPS, GROUPS, LUA_GROUP } from './groups.js';
import { luaTable, runLuaMutants } from './lua.js';
import { MUTATION_FLAGS } from './options.js';
import { equivalentLines, groupTable, REPORTS_DIR, runGroup, survivorLines } from './stryker.js';

const USAGE = `usage: npm run mutation -- [--group <names>] [--all] [--incremental]
  --group        comma-separated groups (default: ${DEFAULT_GROUPS.join(',')}); one of:
${GROUPS.map((g) => `                   ${g.name.padEnd(13)}${g.about}`).join('\n')}
  --all          every group (${ALL_GROUPS.join(',')})
  --incremental  StrykerJS's incremental mode: only mutants whose code or tests changed since the last run of the group
Reports: ${REPORTS_DIR}/<group>/index.html, and the tables in ${REPORTS_DIR}/summary-<groups>.md.`;

async function main(): Promise<number> {
  const { values } = parseFlags(process.argv.slice(2), MUTATION_FLAGS);
  if (values.all && values.group) throw new UsageError('--all and --group exclude each other');
  const names = values.all
    ? ALL_GROUPS
    : (values.group
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean) ?? DEFAULT_GROUPS);
  const unknown = names.filter((n) => !GROUPS.some((g) => g.name === n));
  if (unknown.length > 0) throw new UsageError(`unknown group ${unknown.join(', ')}`);
  process.chdir(REPO_ROOT);
  mkdirSync(REPORTS_DIR, { recursive: true });
  const summary = `${REPORTS_DIR}/summary-${names.join('+')}.md`;

  const sections: string[] = [`# mutation run, ${new Date().toISOString()}`];
  let gaps = 0;
  for (const name of names) {
    const t0 = Date.now();
    if (name === LUA_GROUP) {
      const outcomes = await runLuaMutants((line) => console.log(line));
      const survived = outcomes.filter((o) => !o.killed).length;
      gaps += survived;
      sections.push(`## lua (${Math.round((Date.now() - t0) / 1000)} s): ${outcomes.length - survived} of ${outcomes.length} killed`, luaTable(outcomes));
    } else {
      const group = GROUPS.find((g) => g.name === name)!;
      const run = await runGroup(group, values.incremental === true);
      const survivors = survivorLines(run);
      gaps += survivors.length;
      sections.push(
        `## ${name}`,
        groupTable(run),
        '### survived or not covered',
        ...(survivors.length ? survivors : ['none']),
        '### equivalent (Stryker disable, with reason)',
        ...(equivalentLines(run).length ? equivalentLines(run) : ['none']),
      );
    }
    writeFileSync(summary, sections.join('\n\n') + '\n');
    console.log(sections.slice(-1)[0]);
  }
  console.log(`\n${sections.join('\n\n')}\n\nwritten to ${summary}`);
  // A surviving mutant is a finding, not a broken command: the run's exit says only that it ran.
  console.log(gaps === 0 ? 'every mutant killed or listed as equivalent' : `${gaps} mutants survived or were not covered: see the survivors above`);
  return 0;
}

runCli('mutation', USAGE, main);
