// A Markdown table from a header and rows, its cells' pipes escaped: every report's and doc block's tables.

/** A cell's `|` would end it early. */
const escapeCell = (cell: string) => cell.replace(/\|/g, '\\|');

export function markdownTable(header: readonly string[], rows: string[][]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(escapeCell).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
