// The suite's file order: vitest's own (groups in order; known-slow or larger files first), with
// the files that start processes of their own moved to the front of their group. cli.test.ts runs
// ten tsx processes (about 20 s): queued behind the lock files, as vitest's order puts the unit
// project after the locks project, it was the last file of the group by 20 s.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const FIRST_IN_GROUP = ['test/unit/cli.test.ts'];

export class SuiteSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = (f: TestSpecification) => FIRST_IN_GROUP.some((name) => f.moduleId.endsWith(`/${name}`));
    const groupOf = (f: TestSpecification) => f.project.config.sequence.groupOrder;
    // stable: within a group, the moved files keep their order and so do the rest
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => groupOf(a.f) - groupOf(b.f) || Number(first(b.f)) - Number(first(a.f)) || a.i - b.i)
      .map(({ f }) => f);
  }
}
