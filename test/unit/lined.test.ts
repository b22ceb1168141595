// A strategy's two forms (src/strategies/lined.ts): the course's row and its `+line` row share
// everything but the name, the lock and the description.
import { describe, expect, it } from 'vitest';
import { ProcessLine } from '../../src/locks/process-line.js';
import type { LockWithExpiry } from '../../src/locks/lock.js';
import { withLockReentered } from '../../src/locks/reenter-once.js';
import { linedName, withLinedRow } from '../../src/strategies/lined.js';

/** A lock that is never asked: the declarations are only compared. */
const inert: LockWithExpiry = {
  expiry: 'session',
  lostAcquire: 'released by its owner',
  acquire: () => Promise.reject(new Error('not asked')),
} as unknown as LockWithExpiry;

describe('withLinedRow', () => {
  it('yields the course’s declaration unchanged, then its +line row with the lined lock and description', () => {
    const lined = new ProcessLine(inert);
    const perRequest = {
      name: 'zk-watch',
      family: 'zookeeper',
      course: '§3.4.2',
      description: { en: 'one node per request', zh: '每个请求一个节点' },
      expected: { oneInstance: 'exact', threeInstances: 'exact' },
      lock: inert,
      scope: withLockReentered,
      faultLab: true,
    } as const;
    const [course, line] = withLinedRow(perRequest, { lock: lined, description: { en: 'behind a process line', zh: '进程内排队' } });
    expect(course).toBe(perRequest);
    expect(line).toEqual({ ...perRequest, name: 'zk-watch+line', lock: lined, description: { en: 'behind a process line', zh: '进程内排队' } });
    expect(linedName('redlock')).toBe('redlock+line');
  });
});
