import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import suite from './vitest.config.js';

// `npm run mutation` (StrykerJS): the projects whose tests run the code under test in their own
// process, where a mutant can be switched on: unit, the lock contract and the integration files.
// The faults, chaos, browser and compose projects drive service instances in child processes,
// which never see the active mutant, and take minutes each.
// STOCKLAB_MUTATION_TESTS (comma-separated test files, set by mutation/stryker.ts from the group)
// narrows each project to the files that test the group's code: the dry run, which runs them all
// once to learn which test covers which mutant, then boots only the servers those need.
// test/support/mutation-setup.ts skips the load races, which only instances run.
const IN_PROCESS = new Set(['unit', 'locks', 'integration']);
const only = process.env.STOCKLAB_MUTATION_TESTS?.split(',').filter(Boolean);

const projects = (suite.test?.projects ?? [])
  .filter((p): p is TestProjectInlineConfiguration => typeof p === 'object' && 'test' in p && IN_PROCESS.has(p.test?.name as string))
  .map((p) => {
    const setupFiles = [...[p.test?.setupFiles ?? []].flat(), 'test/support/mutation-setup.ts'];
    if (!only) return { ...p, test: { ...p.test, setupFiles } };
    const folder = `test/${p.test?.name as string}/`;
    return { ...p, test: { ...p.test, setupFiles, include: only.filter((f) => f.startsWith(folder)) } };
  })
  .filter((p) => (p.test?.include?.length ?? 0) > 0);

export default defineConfig({ test: { ...suite.test, projects } });
