// A strategy in two forms. The course's form takes the lock once per request (one ZooKeeper node,
// one RedLock hold per request); its `+line` row puts the same lock behind a process line
// (locks/process-line.ts: one contender per instance, grants passed on in memory), which is faster
// but another algorithm. Both are rows, so a student measures what the course describes, and the
// line beside it.
import type { Lease, LockWithExpiry } from '../locks/lock.js';
import type { Bilingual } from '../lang.js';
import type { LockedDeduction } from './strategy.js';

/** What names a strategy's lined form: `zk-watch` → `zk-watch+line`. */
export const LINE_SUFFIX = '+line';

export function linedName(name: string): string {
  return `${name}${LINE_SUFFIX}`;
}

/** A per-request declaration measured by the fault lab (both of its forms are); no `answer`, which reads its own lock's grant. */
type PerRequest<L extends Lease> = LockedDeduction<L> & { faultLab: true; lock: LockWithExpiry<L>; answer?: never };

/** What the lined row has of its own; everything else (course, expected, scope) it shares. */
export interface LinedForm {
  lock: LockWithExpiry;
  description: Bilingual;
}

/** The declaration as the course has it, then its `+line` row. */
export function withLinedRow<L extends Lease>(perRequest: PerRequest<L>, lined: LinedForm): readonly [PerRequest<L>, PerRequest<Lease>] {
  return [perRequest, { ...perRequest, name: linedName(perRequest.name), description: lined.description, lock: lined.lock }];
}
