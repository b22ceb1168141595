// How every command line of the project (cluster, lab, bench, faults, compose) is read: node:util
// parseArgs, strict, so `--flag value` and `--flag=value` work in any order and a flag nobody
// defined is named in the error; `--help` / `-h` prints the usage and exits 0.
import { isLang, LANGS, type Lang } from '../lang.js';
import { parseArgs, type ParseArgsConfig } from 'node:util';

type FlagDefinitions = NonNullable<ParseArgsConfig['options']>;

/** A command line that cannot be run as given: the CLI prints the message and its usage, exit 2. */
export class UsageError extends Error {}

/** `--help` was given: the CLI prints its usage to stdout and exits 0. */
export class HelpRequested extends Error {}

/** The flag every command takes. */
export const HELP_FLAG = { help: { type: 'boolean', short: 'h' } } as const;

/** --lang en|zh: the language of a command's markdown and closing lines (its HTML report carries both). */
export const LANG_FLAG = { lang: { type: 'string' } } as const;

export function langOption(raw: string | undefined): Lang {
  if (raw === undefined) return 'en';
  if (!isLang(raw)) throw new UsageError(`--lang must be one of ${LANGS.join(', ')}, got "${raw}"`);
  return raw;
}

const NODE_CODES = new Set(['ERR_PARSE_ARGS_UNKNOWN_OPTION', 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE', 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL']);

/** parseArgs' own message, shortened to what the person typed wrong. */
function usageMessage(err: Error & { code?: string }): string {
  const quoted = /'([^']+)'/.exec(err.message)?.[1];
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted) return `unknown flag ${quoted}`;
  if (err.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && quoted) return `unexpected argument "${quoted}"`;
  return err.message.replace(/\.?\s*To specify .*$/s, '');
}

/**
 * Parses `args` against `options` (which should include HELP_FLAG). Throws HelpRequested for
 * --help, UsageError for anything parseArgs refuses.
 */
export function parseFlags<const O extends FlagDefinitions, const P extends boolean = false>(args: readonly string[], options: O, allowPositionals?: P) {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options, strict: true, allowPositionals: (allowPositionals ?? false) as P });
  } catch (err) {
    const e = err as Error & { code?: string };
    if (e.code !== undefined && NODE_CODES.has(e.code)) throw new UsageError(usageMessage(e));
    throw err;
  }
  if ((parsed.values as Record<string, unknown>).help === true) throw new HelpRequested('help');
  return parsed;
}

/**
 * Runs a CLI's main and exits with its code: --help → usage on stdout, 0; a usage error → the
 * message and the usage on stderr, 2; any other error → one line on stderr, 1.
 */
export function runCli(name: string, usage: string, main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      if (err instanceof HelpRequested) {
        console.log(usage);
        process.exit(0);
      }
      if (err instanceof UsageError) {
        console.error(`${name}: ${err.message}\n${usage}`);
        process.exit(2);
      }
      console.error(`${name} failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
