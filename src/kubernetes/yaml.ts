// A small YAML writer for the manifests: maps, lists, strings, numbers and booleans only, which is
// all a manifest holds. Strings are double-quoted (JSON's escapes are YAML's), multi-line ones become
// literal blocks so a ConfigMap's file reads as the file. No dependency: kubectl reads any YAML.

export type Yaml = string | number | boolean | null | undefined | readonly Yaml[] | { readonly [key: string]: Yaml };

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_.\-/]*$/;

function scalar(value: string | number | boolean | null): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

function key(k: string): string {
  return PLAIN_KEY.test(k) ? k : JSON.stringify(k);
}

/** A literal block keeps every line as it is; lines with trailing spaces or tabs would not survive it. */
function isBlock(value: Yaml): value is string {
  return typeof value === 'string' && value.includes('\n') && !/[ \t]\n|\t/.test(value);
}

function block(text: string, indent: string): string {
  const chomp = text.endsWith('\n') ? '' : '-';
  const body = text
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => (l === '' ? '' : `${indent}${l}`))
    .join('\n');
  return `|${chomp}\n${body}`;
}

const isList = (v: Yaml): v is readonly Yaml[] => Array.isArray(v);
const isMap = (v: Yaml): v is { readonly [key: string]: Yaml } => typeof v === 'object' && v !== null && !isList(v);

function lines(value: Yaml, indent: string): string[] {
  if (isList(value)) {
    if (value.length === 0) return [`${indent}[]`];
    return value.flatMap((item) => {
      const inner = lines(item, `${indent}  `);
      const first = (inner[0] ?? '').slice(indent.length + 2);
      return [`${indent}- ${first}`, ...inner.slice(1)];
    });
  }
  if (isMap(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return [`${indent}{}`];
    return entries.flatMap(([k, v]) => {
      if (isBlock(v)) return [`${indent}${key(k)}: ${block(v, `${indent}  `)}`];
      if ((isList(v) && v.length > 0) || (isMap(v) && Object.values(v).some((x) => x !== undefined)))
        return [`${indent}${key(k)}:`, ...lines(v, isList(v) ? indent : `${indent}  `)];
      return [`${indent}${key(k)}: ${lines(v, '')[0] ?? ''}`];
    });
  }
  return [`${indent}${scalar(isMap(value) || isList(value) ? null : (value ?? null))}`];
}

/** One YAML document per object, separated by `---`. */
export function toYaml(documents: readonly Yaml[]): string {
  return documents.map((d) => lines(d, '').join('\n')).join('\n---\n') + '\n';
}
