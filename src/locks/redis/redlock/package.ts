// The redlock package as stocklab uses it, typed by src/types/redlock.d.ts (the package's own
// declarations, which its "exports" map hides from NodeNext resolution).
import RedlockClass, { ExecutionError, Lock, ResourceLockedError } from 'redlock';

export const Redlock = RedlockClass;
export type Redlock = RedlockClass;
export { ExecutionError, ResourceLockedError };
export type RedlockHold = Lock;
/** The package's hold, built for a value set by a script of stocklab's own (a hand-off). */
export const RedlockLease = Lock;
