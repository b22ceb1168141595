import { InProcessMutexLock } from '../locks/mutex.js';
import { readThenWrite } from '../stock/read-then-write.js';
import { declareStrategies } from './declare.js';
import type { FamilyFactory } from './strategy.js';

/** The problem and the first, process-local answer to it (course §1.4–1.6). */
export const baselineFamily: FamilyFactory = async (deps) => ({
  strategies: declareStrategies(deps, [
    {
      name: 'none',
      family: 'baseline',
      course: '§1.4–1.6',
      description: 'Read the count, then write count − 1, with no lock at all.',
      expected: { oneInstance: 'oversells', threeInstances: 'oversells', note: 'concurrent readers write the same value: lost updates' },
      stores: ['mysql', 'redis'],
      sql: deps.stock.mysql.sql.readThenWrite,
      deduct: async (req) => ({ outcome: await readThenWrite(deps.stock[req.store], req.workMs, { sale: req.requestId, signal: req.signal }) }),
    },
    {
      name: 'mutex',
      family: 'baseline',
      course: '§1.4–1.6',
      description: 'The same read-then-write under an in-process async mutex (Java synchronized).',
      expected: { oneInstance: 'exact', threeInstances: 'oversells', note: 'each instance has its own mutex' },
      lock: new InProcessMutexLock(),
    },
  ]),
});
