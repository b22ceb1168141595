// The suite's file order: vitest's own (groups in order; known-slow or larger files first, by its
// cache of durations, which a fresh clone has not), with the files below moved to the front of
// their group, in this order. Each is long once its servers' boot is counted, which vitest's own
// duration leaves out: started late, one of them was the group's tail (connect-hang.test.ts ran
// 78–109 s of a 125 s group, with one worker idle after 109 s). cli.test.ts runs ten tsx processes:
// queued behind the lock files, it was the last file of the group by 20 s.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const FIRST_IN_GROUP = [
  'test/unit/cli.test.ts',
  'test/locks/connect-hang.test.ts',
  'test/locks/redis.contract.test.ts',
  'test/locks/zookeeper.contract.test.ts',
  'test/integration/etcd.test.ts',
  'test/integration/redis-races.test.ts',
  'test/integration/foundation.test.ts',
  'test/integration/bench-e2e.test.ts',
];

export class SuiteSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = FIRST_IN_GROUP.findIndex((name) => f.moduleId.endsWith(`/${name}`));
      return i === -1 ? FIRST_IN_GROUP.length : i;
    };
    const groupOf = (f: TestSpecification) => f.project.config.sequence.groupOrder;
    // stable: the listed files in the list's order, then the rest in vitest's
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => groupOf(a.f) - groupOf(b.f) || rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}
