// The generated blocks of the docs: text between `<!-- generated:NAME -->` and
// `<!-- /generated:NAME -->`, rewritten from a run's JSON by `npm run docs`; the prose around them is
// left alone.

const BLOCK = /<!-- generated:([a-z-]+) -->\n[\s\S]*?<!-- \/generated:\1 -->/g;

/** The names of the generated blocks a text holds, in order. */
export function blockNames(text: string): string[] {
  return [...text.matchAll(BLOCK)].map((m) => m[1] as string);
}

/**
 * Replaces each block whose name `blocks` has; a block it does not have is kept as it is (e.g. the
 * fault tables when no fault run is given). Returns the new text and the names it replaced.
 */
export function fillBlocks(text: string, blocks: ReadonlyMap<string, string>): { text: string; filled: string[] } {
  const filled: string[] = [];
  const out = text.replace(BLOCK, (whole, name: string) => {
    const body = blocks.get(name);
    if (body === undefined) return whole;
    filled.push(name);
    return `<!-- generated:${name} -->\n${body.trimEnd()}\n<!-- /generated:${name} -->`;
  });
  return { text: out, filled };
}
