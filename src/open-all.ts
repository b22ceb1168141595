/**
 * Opens each part in turn; if one fails, closes those already open before rethrowing, so a failed
 * start leaves no connection behind. (The catalog's families, the demo groups.)
 */
export async function openAll<D, T extends { close?(): Promise<void> }>(deps: D, factories: readonly ((deps: D) => Promise<T>)[]): Promise<T[]> {
  const opened: T[] = [];
  try {
    for (const open of factories) opened.push(await open(deps));
  } catch (err) {
    await Promise.allSettled(opened.map((p) => p.close?.()));
    throw err;
  }
  return opened;
}
