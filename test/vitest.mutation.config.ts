import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import suite from './vitest.config.js';

// `npm run mutation` (StrykerJS): the projects whose tests run the code under test in their own
// process, where a mutant can be switched on: unit, the lock contract and the integration files.
// The faults, chaos, browser and compose projects drive service instances in child processes,
// which never see the active mutant, and take minutes each.
const IN_PROCESS = new Set(['unit', 'locks', 'integration']);

const projects = (suite.test?.projects ?? []).filter(
  (p): p is TestProjectInlineConfiguration => typeof p === 'object' && 'test' in p && IN_PROCESS.has(p.test?.name as string),
);

export default defineConfig({ test: { ...suite.test, projects } });
