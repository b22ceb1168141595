// redlock 5.0.0-beta.2 ships its types, but its package.json "exports" does not name them, so
// NodeNext resolution sees an untyped module. This is the one place that bridges the two: the
// runtime import from the package, typed with the package's own declaration file.
// @ts-expect-error TS7016: the package's exports map hides dist/index.d.ts (typed below)
import * as untyped from 'redlock';
import type * as Typed from '../../../../node_modules/redlock/dist/index.js';

const runtime = untyped as typeof Typed;

export const Redlock = runtime.default;
export type Redlock = Typed.default;
export const ExecutionError = runtime.ExecutionError;
export const ResourceLockedError = runtime.ResourceLockedError;
export type RedlockHold = Typed.Lock;
/** The package's hold, built for a value set by a script of stocklab's own (a hand-off). */
export const RedlockLease = runtime.Lock;
