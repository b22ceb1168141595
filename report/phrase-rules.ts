// Texts a run writes into its JSON in English (a fault's note, a checker's problem, a partition) said
// in Chinese for the reports' zh half and the Chinese docs: each clause matched whole by a rule, its
// names and figures carried over; a clause no rule knows stays as it is, never mistranslated.

/** A whole-clause pattern and its Chinese, with `$1`… for the pattern's groups (names, figures). */
export type PhraseRule = readonly [pattern: RegExp, zh: string];

/** One clause by the first rule whose pattern matches it whole; the clause itself when none does. */
export function byRules(clause: string, rules: readonly PhraseRule[]): string {
  for (const [pattern, zh] of rules) {
    const m = pattern.exec(clause);
    if (m && m[0] === clause) return zh.replace(/\$(\d)/g, (_, i: string) => m[Number(i)] ?? '');
  }
  return clause;
}

/** A text of clauses joined by `sep` ("; "), each said by the rules, joined by `zhSep`. */
export function clausesByRules(text: string, rules: readonly PhraseRule[], sep = '; ', zhSep = '；'): string {
  return text
    .split(sep)
    .map((c) => byRules(c, rules))
    .join(zhSep);
}
