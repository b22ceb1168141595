// Loaded by test/vitest.mutation.config.ts only (npm run mutation). A load race through nginx
// (autocannon, "N requests for M units") runs its code in service instances, child processes where
// no mutant is ever switched on, so it can kill none; on a busy machine its refusal bound is what
// fails first, and a test that fails on correct code stops the mutation run. It is skipped there,
// and runs in `npm test` as always.
import { beforeEach } from 'vitest';

const LOAD_RACE = /\d+ requests for \d+ units/;

beforeEach((ctx) => {
  if (LOAD_RACE.test(ctx.task.name) || LOAD_RACE.test(ctx.task.suite?.name ?? '')) ctx.skip();
});
