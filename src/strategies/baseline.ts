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
      description: {
        en: 'Read the count, then write count − 1, with no lock at all.',
        zh: '先读库存，再写回库存 − 1，完全不加锁。',
      },
      expected: { oneInstance: 'oversells', threeInstances: 'oversells', note: 'concurrent readers write the same value: lost updates' },
      stores: ['mysql', 'redis'],
      sql: deps.stock.mysql.sql.readThenWrite,
      deduct: async (req) => ({ outcome: await readThenWrite(deps.stock[req.store], req.workMs, { sale: req.requestId, signal: req.signal }) }),
    },
    {
      name: 'mutex',
      family: 'baseline',
      course: '§1.4–1.6',
      description: {
        en: 'The same read-then-write under an in-process async mutex (Java synchronized).',
        zh: '同样的先读后写，包在进程内的异步互斥锁里（相当于 Java 的 synchronized，JVM 本地锁）。',
      },
      expected: { oneInstance: 'exact', threeInstances: 'oversells', note: 'each instance has its own mutex' },
      lock: new InProcessMutexLock(),
    },
  ]),
});
