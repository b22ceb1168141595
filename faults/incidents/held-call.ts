// Holds back one call of a method on a client, the first that matches after `skip` others did,
// until the lab opens it: how a case orders a reply after another (a refresh answered after the
// release) without racing.

export interface HeldCall {
  /** Resolves when the matching call has been made (and held). */
  readonly held: Promise<void>;
  /** Lets the held call through; resolves once it has been answered (or failed). */
  open(): Promise<void>;
}

export function holdCall(target: object, method: string, matches: (args: unknown[]) => boolean, skip = 0): HeldCall {
  const methods = target as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const original = methods[method];
  if (typeof original !== 'function') throw new Error(`no method ${method} to hold`);
  let letThrough!: () => void;
  const opened = new Promise<void>((resolve) => (letThrough = resolve));
  let arrived!: () => void;
  const held = new Promise<void>((resolve) => (arrived = resolve));
  let answered: Promise<unknown> | undefined;
  let skipped = 0;
  methods[method] = (...args: unknown[]) => {
    if (answered !== undefined || !matches(args) || skipped++ < skip) return original.apply(target, args);
    answered = opened.then(() => original.apply(target, args));
    arrived();
    return answered;
  };
  return {
    held,
    async open() {
      letThrough();
      await answered?.catch(() => undefined);
      // the caller's continuation after the reply runs before the next turn of the event loop
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}
