import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { SuiteSequencer } from './support/sequencer.js';
import { INTEGRATION_WORKERS } from './support/workers.js';

// One folder per project; a file's folder decides how it runs:
// - test/unit/: pure tests, no server and no cluster. A new pure test goes in test/unit/.
// - test/locks/: the lock contract suite; each file boots only the servers its locks need.
// - test/integration/: tests on the shared cluster (its single stock row), one file at a time.
// - test/faults/: the fault lab's tests, and the tests that freeze, stop and kill the servers of
//   private clusters of their own (lock holders that die, dependencies that go away, ZooKeeper
//   sessions lost; the topologies' is replicated): they run one after the other, without the
//   shared cluster.
// - test/chaos/: the nemesis and the soak, on a private cluster.
// - test/network/: the hosts topology and its partitions (root only), on a private cluster.
// - test/browser/: the live lab's page in chromium, on a private cluster.
// - test/compose/: docker compose, really run.
// `npm test` runs unit, locks and integration; faults, chaos, network, browser and compose have
// scripts of their own (npm run test:faults, test:chaos, …), which .ci/run runs after it, so the
// suite keeps its 8-minute budget.
// test/support/ holds the helpers and has no tests.

// Vitest 4 runs projects with different worker counts one group after the other, so the unit and
// lock contract files run first, three at a time, then the integration files two at a time. Three:
// the lock files wait on timeouts and sessions more than they compute, and with two workers a core
// was idle 30–60 % of their time (while the shared clusters boot beside them, global-setup.ts).
const GROUP_0_WORKERS = 3;
// `--project unit` runs the unit files alone, without booting any server.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    sequence: { sequencer: SuiteSequencer },
    projects: [
      {
        // Pure files share their worker's module cache (isolate: false), which halves the project's
        // time; a file that mocks a module resets the cache before and after it (lab-locks.test.ts).
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], maxWorkers: GROUP_0_WORKERS, isolate: false, sequence: { groupOrder: 0 } },
      },
      {
        // The lock contract suite: each file boots only the server its locks need, so they run side by side.
        extends: true,
        test: {
          name: 'locks',
          include: ['test/locks/**/*.test.ts'],
          maxWorkers: GROUP_0_WORKERS,
          sequence: { groupOrder: 0 },
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          sequence: { groupOrder: 1 },
          // Integration tests share a cluster and its single stock row, so a cluster's files run one
          // at a time: each of the workers has a cluster of its own (global-setup.ts) and keeps its
          // imports (src/, report/, bench/, the load process) from file to file instead of starting
          // afresh.
          maxWorkers: INTEGRATION_WORKERS,
          isolate: false,
          globalSetup: ['test/support/global-setup.ts'],
          // the shared clusters boot while the unit and lock files run: each file waits for them
          setupFiles: ['test/support/shared-ready.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'faults',
          include: ['test/faults/**/*.test.ts'],
          sequence: { groupOrder: 3 },
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        // The nemesis and the soak: mixed faults, steady load and a soak that must find a real leak,
        // on private clusters (a few minutes), run as a step of its own (npm run test:chaos) so the
        // suite keeps its budget.
        extends: true,
        test: {
          name: 'chaos',
          include: ['test/chaos/**/*.test.ts'],
          sequence: { groupOrder: 3 },
          fileParallelism: false,
          testTimeout: 240_000,
          hookTimeout: 180_000,
        },
      },
      {
        // The hosts topology (a network namespace per server, root only) and the partitions cut in
        // it: a private cluster, its cases sequenced around a cut, run as a step of its own
        // (npm run test:network) so the suite keeps its budget.
        extends: true,
        test: {
          name: 'network',
          include: ['test/network/**/*.test.ts'],
          sequence: { groupOrder: 3 },
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        // The live lab's page in a real browser (Debian's chromium), on a private cluster: after
        // the integration files, one file at a time.
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          sequence: { groupOrder: 2 },
          fileParallelism: false,
          testTimeout: 90_000,
          hookTimeout: 180_000,
        },
      },
      {
        // docker compose, really run (a Docker engine it starts if need be, images built once per
        // machine): last, alone, so its containers never compete with the native clusters' tests.
        extends: true,
        test: {
          name: 'compose',
          include: ['test/compose/*.test.ts'],
          sequence: { groupOrder: 4 },
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 1_200_000,
        },
      },
    ],
  },
});
