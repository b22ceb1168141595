// A race's safety, as a list of what went wrong (empty: exact), for CLIs that cannot use expect():
// the same conditions as the tests' expectSafe (test/support/race-checks.ts).
import type { RaceResult } from '../src/load/race.js';
import { isAllowedAnswer } from '../src/http/answers.js';

export function expectedSafety(r: RaceResult): string[] {
  const problems: string[] = [];
  if (r.deducted !== r.ok) problems.push(`${r.ok} sold but ${r.deducted} deducted`);
  if (r.oversold > 0) problems.push(`${r.oversold} oversold`);
  if (r.noAnswer > 0) problems.push(`${r.noAnswer} unanswered`);
  if (r.truncated) problems.push('truncated');
  const unexpected = Object.keys(r.byAnswer).filter((k) => !isAllowedAnswer(k));
  if (unexpected.length > 0) problems.push(`undocumented answers ${unexpected.join(', ')}`);
  if (r.soldOut > 0 && r.left > 0) problems.push(`"sold out" with ${r.left} left`);
  return problems;
}
